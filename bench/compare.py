#!/usr/bin/env python3
"""Side-by-side table (markdown) and plot (PNG) of `cudnn-install bench` against PyTorch's cuDNN
convolution, from the JSON files that bench/run-on-device.sh wrote in one run on one GPU.

Usage: compare.py RESULTS_DIR [PLOT.png]
"""
import glob
import json
import os
import sys


def load(pattern):
    rows = {}
    for path in sorted(glob.glob(pattern)):
        data = json.load(open(path))
        for r in data["results"]:
            rows.setdefault((r["shape"], r["dtype"], r["layout"]), {})[r.get("tier", "pytorch")] = r
    return rows


def main():
    results = sys.argv[1]
    ours = load(os.path.join(results, "cudnn-install-*.json"))
    torch = load(os.path.join(results, "pytorch-*.json"))
    print("| layer | type | layout | graph API TFLOP/s | legacy Find TFLOP/s | PyTorch TFLOP/s | best / PyTorch | % of peak | check |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    worst = {}
    for key, tiers in ours.items():
        shape, dtype, layout = key
        g, l = tiers.get("graph", {}), tiers.get("legacy", {})
        t = torch.get(key, {}).get("pytorch", {})
        best = max(g.get("tflops", 0), l.get("tflops", 0))
        best_row = g if g.get("tflops", 0) >= l.get("tflops", 0) else l
        ratio = best / t["tflops"] if t.get("tflops") else float("nan")
        checks = [r.get("correct") for r in (g, l) if "correct" in r]
        check = "ok" if checks and all(checks) else ("WRONG" if checks else "-")
        fmt = lambda r: f"{r['tflops']:.1f}" if "tflops" in r else "n/a"
        print(f"| {shape} | {dtype} | {layout} | {fmt(g)} | {fmt(l)} | {fmt(t)} | {ratio:.2f}x | "
              f"{best_row.get('peak_percent', 0):.1f}% | {check} |")
        if dtype in ("fp16", "bf16") and layout == "nhwc" and "large" not in shape:
            worst[(dtype, layout)] = min(worst.get((dtype, layout), 9e9), ratio)
    for (dtype, layout), ratio in sorted(worst.items()):
        print(f"\nlowest best/PyTorch ratio over the ResNet-50 layers, {dtype} {layout}: {ratio:.2f}x")
    if len(sys.argv) > 2:
        plot(ours, torch, sys.argv[2])


def plot(ours, torch, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 1, figsize=(14, 9), sharex=True)
    for ax, dtype in zip(axes, ("fp16", "bf16")):
        keys = [k for k in ours if k[1] == dtype and k[2] == "nhwc"]
        names = [k[0] for k in keys]
        x = range(len(keys))
        series = [("cudnn-install graph API", [ours[k].get("graph", {}).get("tflops", 0) for k in keys]),
                  ("cudnn-install legacy Find", [ours[k].get("legacy", {}).get("tflops", 0) for k in keys]),
                  ("PyTorch (cudnn.benchmark)", [torch.get(k, {}).get("pytorch", {}).get("tflops", 0) for k in keys])]
        for i, (label, values) in enumerate(series):
            ax.bar([v + (i - 1) * 0.27 for v in x], values, width=0.27, label=label)
        ax.set_ylabel(f"{dtype.upper()} NHWC TFLOP/s")
        ax.legend(loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    axes[1].set_xticks(list(range(len(names))))
    axes[1].set_xticklabels(names, rotation=35, ha="right", fontsize=8)
    fig.suptitle("ResNet-50 convolutions, batch 128, NVIDIA H200, cuDNN 9.19")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
