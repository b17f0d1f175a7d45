#!/usr/bin/env python3
"""Side-by-side table (markdown) and plot (PNG) of `cudnn-install bench` against PyTorch's cuDNN
convolution, from the JSON files that bench/run-on-device.sh wrote in one run on one GPU.

Both sides report a kernel time per execution (the faster median of a CUDA graph replay and
back-to-back calls, over several batches) with its min and max over the batches. The ratio is
PyTorch's kernel time over ours (above 1.00: ours is faster); its spread runs from PyTorch's
fastest batch over our slowest to PyTorch's slowest over our fastest, and a ratio whose spread
crosses 1.00 is flagged: that difference is within the noise.

Usage: compare.py RESULTS_DIR... [PLOT.png]   (the directories of one run, e.g. its nhwc and nchw parts)
"""
import glob
import json
import os
import sys

GROUPS = [("fp16", "nhwc"), ("bf16", "nhwc"), ("tf32", "nhwc"), ("fp32", "nhwc"), ("fp16", "nchw"), ("bf16", "nchw")]


def load(dirs, pattern):
    rows, meta = {}, {}
    for path in sorted(p for d in dirs for p in glob.glob(os.path.join(d, pattern))):
        data = json.load(open(path))
        meta = data
        for r in data["results"]:
            rows.setdefault((r["shape"], r["dtype"], r["layout"]), {})[r.get("tier", "pytorch")] = r
    return rows, meta


def picked_stage_ms(result):
    """The median of a tier's pick in its finalist stage; None when the result has no such stage."""
    picked = [f for f in result.get("search", {}).get("finalists", []) if f.get("picked") and "median_ms" in f]
    return picked[0]["median_ms"] if picked else None


def stage_ms(result):
    """The median of a tier's pick in its finalist stage (its reported figure when absent)."""
    stage = picked_stage_ms(result)
    return result["median_ms"] if stage is None else stage


def ours_pick(tiers):
    """The tier whose pick was faster in its finalist stage; the graph tier on a tie. Chosen by the
    stage's timing, not by the reported figure: the faster of two independent reports of the same
    kernel would flatter ours by the noise; a choice made on other samples leaves the report unbiased."""
    ran = [t for t in ("graph", "legacy") if "median_ms" in tiers.get(t, {})]
    return min((tiers[t] for t in ran), key=stage_ms) if ran else None


def single_ms(r):
    t = r.get("timings", {}).get("single_call", {})
    return t.get("ms_per_execution", {}).get("median") if t.get("measured") else None


def ratio(ours, torch):
    """PyTorch's time over ours at the medians, and its spread over the batches."""
    mid = torch["median_ms"] / ours["median_ms"]
    return mid, torch["min_ms"] / ours["max_ms"], torch["max_ms"] / ours["min_ms"]


def short(method):
    return {"cuda_graph": "graph", "back_to_back": "b2b"}.get(method, method)


def table(ours, torch, peak):
    print("| layer | type | layout | ours TFLOP/s (tier, timing) | PyTorch TFLOP/s (timing) | PyTorch / ours "
          "[spread] | | ours single call ms | PyTorch single call ms | % of peak | check | our pick |")
    print("|---|---|---|---:|---:|---:|---|---:|---:|---:|---|---|")
    summary = {}
    for key in sorted(ours, key=lambda k: (GROUPS.index(k[1:]) if k[1:] in GROUPS else 99)):
        shape, dtype, layout = key
        o, t = ours_pick(ours[key]), torch.get(key, {}).get("pytorch")
        if not o or not t:
            print(f"| {shape} | {dtype} | {layout} | {'n/a' if not o else o['tflops']} | "
                  f"{'n/a' if not t else round(t['tflops'], 1)} | | | | | | | |")
            continue
        mid, lo, hi = ratio(o, t)
        flag = "spread crosses 1.00" if lo < 1.0 < hi else ("**below 1.00**" if mid < 1.0 else "")
        checks = [r.get("correct") for r in ours[key].values() if "correct" in r]
        check = "ok" if checks and all(checks) else "WRONG"
        s_o, s_t = single_ms(o), single_ms(t)
        print(f"| {shape} | {dtype} | {layout} | {o['tflops']:.1f} ({o['tier']}, {short(o['kernel_method'])}) | "
              f"{t['tflops']:.1f} ({short(t['kernel_method'])}) | {mid:.2f}x [{lo:.2f}-{hi:.2f}] | {flag} | "
              f"{s_o:.4f} | {s_t:.4f} | {100 * o['tflops'] / peak[dtype]:.1f}% | {check} | {o['algorithm']} |")
        if "large" not in shape:
            summary.setdefault((dtype, layout), []).append((mid, lo, hi, shape))
        else:
            summary.setdefault(("large", dtype, layout), []).append((100 * o["tflops"] / peak[dtype], shape))
    return summary


def report(summary):
    print()
    below, crossing = [], []
    for (dtype, layout) in GROUPS:
        rows = summary.get((dtype, layout))
        if not rows:
            continue
        worst = min(rows)
        print(f"- {dtype} {layout}, ResNet-50 layers: lowest ratio {worst[0]:.2f}x ({worst[3]}), "
              f"{sum(r[0] >= 1.0 for r in rows)} of {len(rows)} at or above 1.00")
        below += [(f"{r[3]} {dtype} {layout} {r[0]:.3f}x [{r[1]:.3f}-{r[2]:.3f}]", r[2] < 1.0) for r in rows if r[0] < 1.0]
        crossing += [f"{r[3]} {dtype} {layout} {r[0]:.2f}x [{r[1]:.2f}-{r[2]:.2f}]" for r in rows if r[1] < 1.0 < r[2]]
    for key, rows in sorted(summary.items()):
        if key[0] == "large":
            print(f"- large 3x3, {key[1]} {key[2]}: {rows[0][0]:.1f} % of dense peak")
    print(f"\nResNet-50 layers below 1.00 at the median: {len(below)}" +
          ("" if not below else ": " + "; ".join(text for text, _ in below)))
    clearly = [text for text, whole_spread_below in below if whole_spread_below]
    print(f"Of these, with the whole spread below 1.00: {len(clearly)}" + ("" if not clearly else ": " + "; ".join(clearly)))
    print(f"Ratios whose spread crosses 1.00: {len(crossing)}" + ("" if not crossing else ": " + "; ".join(crossing)))


def plot(ours, torch, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(GROUPS), 1, figsize=(14, 3.2 * len(GROUPS)), sharex=True)
    names = []
    for ax, (dtype, layout) in zip(axes, GROUPS):
        keys = sorted((k for k in ours if k[1] == dtype and k[2] == layout), key=lambda k: list(ours).index(k))
        names = [k[0] for k in keys]
        x = range(len(keys))
        mine = [(ours_pick(ours[k]) or {}).get("tflops", 0) for k in keys]
        theirs = [torch.get(k, {}).get("pytorch", {}).get("tflops", 0) for k in keys]
        ax.bar([v - 0.2 for v in x], mine, width=0.4, label="cudnn-install (kernel time)")
        ax.bar([v + 0.2 for v in x], theirs, width=0.4, label="PyTorch cudnn.benchmark (kernel time)")
        ax.set_ylabel(f"{dtype.upper()} {layout.upper()}\nTFLOP/s")
        ax.legend(loc="upper left", fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[-1].set_xticks(list(range(len(names))))
    axes[-1].set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=100)


def main():
    args = sys.argv[1:]
    plot_path = args.pop() if args and args[-1].endswith(".png") else None
    ours, meta = load(args, "cudnn-install-*.json")
    torch, torch_meta = load(args, "pytorch-*.json")
    peak = meta["device"]["peak_tflops"]
    m = meta["method"]
    settle = (f"; before that, {m['settle_ms']:g} ms (PyTorch: {torch_meta['method'].get('settle_ms', 0):g} ms) of "
              "untimed back-to-back executions" if "settle_ms" in m else "")
    ours_cool, torch_cool = m.get("cool_ms", 0), torch_meta["method"].get("cool_ms", 0)
    if ours_cool or torch_cool:
        settle += f", and before that an idle GPU for {ours_cool:g} ms (PyTorch: {torch_cool:g} ms)"
    print(f"{meta['device']['name']}, cuDNN {meta['cudnn_version']}; PyTorch {torch_meta.get('torch')} with cuDNN "
          f"{torch_meta.get('cudnn')}. Both sides: kernel time = the faster median of a CUDA graph replay and "
          f"back-to-back calls, {m['timing']['batches']} batches of {m['timing']['executions_per_batch']} executions "
          f"after {m['timing']['warmup']} warm-up executions and {m['timing'].get('warmup_ms', 0):g} ms of untimed "
          f"batches{settle}; inputs: {m['timing_data']} values. Ratio = PyTorch's kernel time / "
          f"ours, [spread] = its range over the batches.\n")
    report(table(ours, torch, peak))
    if plot_path:
        plot(ours, torch, plot_path, f"ResNet-50 convolutions and a large 3x3, {meta['device']['name']}, "
             f"cuDNN {meta['cudnn_version']}: kernel time")


if __name__ == "__main__":
    main()
