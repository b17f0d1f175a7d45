#!/usr/bin/env python3
"""How far two runs of the same measurement disagree: an A/A test of the bench method.

Each side is compared with itself across runs A and B (same binary, same PyTorch, same layers): a
side's figure for a row in run A over its figure in run B. A fair comparison of ours against PyTorch
cannot resolve differences smaller than this self-disagreement, whatever the spread within one run
says. Rows are matched by layer, type and layout; ours is the tier compare.py would report.

Usage: repeatability.py RUN_A_DIR... -- RUN_B_DIR...   (each run's nhwc and/or nchw directories)
"""
import statistics
import sys

from compare import load, ours_pick, ratio


def figures(dirs):
    ours, _ = load(dirs, "cudnn-install-*.json")
    torch, _ = load(dirs, "pytorch-*.json")
    out = {}
    for key, tiers in ours.items():
        o, t = ours_pick(tiers), torch.get(key, {}).get("pytorch")
        if o and t and "large" not in key[0]:
            out[key] = (o, t)
    return out


def describe(name, values):
    dev = sorted(abs(v - 1) for v in values)
    print(f"| {name} | {len(values)} | {100 * statistics.median(dev):.1f} % | "
          f"{100 * dev[int(0.9 * (len(dev) - 1))]:.1f} % | {100 * dev[-1]:.1f} % |")


def main(argv):
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    a, b = figures(argv[:cut]), figures(argv[cut + 1:])
    keys = sorted(set(a) & set(b))
    if not keys:
        sys.exit("repeatability.py: the two runs have no ResNet-50 row in common")
    ours = [b[k][0]["median_ms"] / a[k][0]["median_ms"] for k in keys]
    torch = [b[k][1]["median_ms"] / a[k][1]["median_ms"] for k in keys]
    ra = [ratio(*a[k])[0] for k in keys]
    rb = [ratio(*b[k])[0] for k in keys]
    print("| figure, run A against run B | rows | median deviation | 90th percentile | largest |")
    print("|---|---:|---:|---:|---:|")
    describe("ours (kernel time)", ours)
    describe("PyTorch (kernel time)", torch)
    describe("PyTorch / ours", [x / y for x, y in zip(ra, rb)])
    flips = [f"{k[0]} {k[1]} {k[2]} ({x:.3f}x, {y:.3f}x)" for k, x, y in zip(keys, ra, rb) if (x >= 1) != (y >= 1)]
    print(f"\nAt or above 1.00 in run A: {sum(x >= 1 for x in ra)} of {len(keys)}; in run B: "
          f"{sum(y >= 1 for y in rb)}. Rows on different sides of 1.00 in the two runs: {len(flips)}")
    for f in flips:
        print(f"- {f}")


if __name__ == "__main__":
    main(sys.argv[1:])
