#!/usr/bin/env python3
"""Do both sides' picks run the same GPU kernels? From bench/run-on-device.sh's `kernels` mode: per
row i, `cudnn-install bench` (row<i>-ours.json) and bench/pytorch_conv.py (row<i>-pytorch.json) on
one configuration, each with bench/kernel_trace.c injected (row<i>-ours.tsv, row<i>-pytorch.tsv, or
the same gzipped: the last kernels the process ran, which are its pick's single calls).

For each side: the kernels among the last TAIL records, with how many times each ran there and its
median duration as CUPTI measured it (the kernel alone, no launch or event overhead). "same" means
both sides ran the same set of kernels, by name and launch shape (traces written before the launch
column: by name alone): a ratio below 1.00 is then not the engine choice.

Usage: kernels.py DIR > kernels.md
"""
import glob
import gzip
import json
import os
import re
import statistics
import sys

TAIL = 64


def lines(path):
    """The trace's lines, from PATH or, once compressed for committing, PATH.gz; None when neither."""
    if os.path.exists(path):
        return open(path, encoding="utf-8", errors="replace")
    if os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", encoding="utf-8", errors="replace")
    return None


def trace(path):
    """{kernel: [durations in us]} over the last TAIL kernels, and the trace's error if any. A kernel is
    its name and, in traces that have it, its launch shape (grid, block, cluster) in brackets."""
    records, error = [], None
    text = lines(path)
    if text is None:
        return {}, f"no {os.path.basename(path)}: the library was not loaded"
    for line in text:
        if line.startswith("# kernel_trace: error:"):
            error = line.split("error:", 1)[1].strip()
        if line.startswith("#") or not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        if len(fields) >= 4 and fields[0].isdigit() and fields[1].isdigit():
            name = fields[-1] if len(fields) == 4 else f"{fields[4]} [{fields[3]}]"  # 4: before the launch column
            records.append((int(fields[1]) - int(fields[0]), name))
    kernels = {}
    for ns, name in records[-TAIL:]:
        kernels.setdefault(name, []).append(ns / 1000)
    return kernels, error


def result(path):
    data = json.load(open(path))
    results = data.get("results") if isinstance(data, dict) else None
    if not results or "median_ms" not in results[0]:
        raise ValueError(f"{path}: no measured result")
    return results[0]


def main_kernel_us(kernels):
    """The median duration of the kernel that took the most time in the tail."""
    return statistics.median(max(kernels.values(), key=sum))


def describe(kernels):
    return "; ".join(f"`{n}` ×{len(d)}, {statistics.median(d):.1f} us" for n, d in
                     sorted(kernels.items(), key=lambda kv: -sum(kv[1])))


def row(directory, index):
    base = os.path.join(directory, f"row{index}")
    ours, torch = result(base + "-ours.json"), result(base + "-pytorch.json")
    (k_ours, e_ours), (k_torch, e_torch) = trace(base + "-ours.tsv"), trace(base + "-pytorch.tsv")
    head = f"| {ours['shape']} | {ours['dtype']} | {ours['layout']} | {ours.get('tier', '?')} | " \
           f"{torch['median_ms'] / ours['median_ms']:.3f}x |"
    if not k_ours or not k_torch:
        why = e_ours or e_torch or "no kernel in a trace"
        return head + f" no trace ({why}) | | |", []
    same = "same" if set(k_ours) == set(k_torch) else "**different**"
    details = [f"- {ours['shape']} {ours['dtype']} {ours['layout']} ({ours.get('algorithm', '?')}): "
               f"ours {describe(k_ours)}", f"  PyTorch {describe(k_torch)}"]
    return head + f" {same} | {main_kernel_us(k_ours):.1f} | {main_kernel_us(k_torch):.1f} |", details


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: kernels.py DIR (a kernels run of bench/run-on-device.sh)")
    directory = sys.argv[1]
    indices = sorted(int(m.group(1)) for p in glob.glob(os.path.join(directory, "row*-ours.json"))
                     if (m := re.search(r"row(\d+)-ours\.json$", p)))
    if not indices:
        sys.exit(f"kernels.py: no row<i>-ours.json in {directory}")
    print("| layer | type | layout | our tier | PyTorch / ours (this run) | kernels | ours, main kernel us | "
          "PyTorch, main kernel us |")
    print("|---|---|---|---|---:|---|---:|---:|")
    details = []
    for i in indices:
        try:
            line, more = row(directory, i)
        except (OSError, ValueError, KeyError) as e:
            line, more = f"| row {i} | | | | | not measured: {e} | | |", []
        print(line)
        details += more
    print(f"\nKernels among each side's last {TAIL} (its pick's single calls), by time taken; durations as "
          "CUPTI measured them:\n")
    print("\n".join(details))


if __name__ == "__main__":
    main()
