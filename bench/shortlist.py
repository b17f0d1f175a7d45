#!/usr/bin/env python3
"""How well the short search's ranking predicts the finalist stage's, from runs already made.

`cudnn-install bench` times every candidate briefly (the search), keeps those within
`--finalist-margin` of the fastest as finalists, times them in turn with the full counts (the stage)
and picks the stage's fastest. Each finalist's search lag is how far behind the search's fastest it
was timed in the search. If the search ranked well, finalists that lag more would win the stage less
often; a win rate that stays level up to the margin says the margin cuts inside the search's noise,
and that candidates just beyond it would win too. The gain is how much faster in the stage the winner
was than the search's fastest.

For run directories that hold PyTorch's side too, it also compares our pick with PyTorch's by how
many finalists the pick had: if one-finalist picks were the rows below 1.00, a wider short list
would be the cure.

Usage: shortlist.py RUN...
  RUN  a `cudnn-install bench --json` file, or a run's directory (as for stage_drift.py)
"""
import os
import sys
from statistics import median

from compare import load, ours_pick, ratio
from stage_drift import bench_reports, run_folders

BIN_PERCENT = 1  # lag bins of 1 %: the finalist margin is a few of them


def multi_finalist_results(paths):
    """The finalists lists of every result that had two or more."""
    lists, single = [], 0
    for path in paths:
        for report in bench_reports(path):
            for r in report.get("results", []):
                finalists = (r.get("search") or {}).get("finalists") or []
                measured = [f for f in finalists if f.get("search_ms") and f.get("median_ms")]
                if len(measured) >= 2:
                    lists.append(measured)
                elif len(measured) == 1:
                    single += 1
    return lists, single


def lag_bins(lists):
    """{bin: [finalists, [gain of each that won]]} over the finalists other than the search's fastest."""
    bins = {}
    for finalists in lists:
        fastest = min(finalists, key=lambda f: f["search_ms"])
        winner = min(finalists, key=lambda f: f["median_ms"])
        for f in finalists:
            if f is fastest:
                continue
            lag = 100 * (f["search_ms"] / fastest["search_ms"] - 1)
            entry = bins.setdefault(int(lag // BIN_PERCENT), [0, []])
            entry[0] += 1
            if f is winner:
                entry[1].append(100 * (fastest["median_ms"] / winner["median_ms"] - 1))
    return bins


def against_pytorch(run):
    """{"one": [ratio...], "several": [...]}: PyTorch's time over our pick's, by the pick's finalists."""
    dirs = run_folders(run)
    ours, _ = load(dirs, "cudnn-install-*.json")
    torch, _ = load(dirs, "pytorch-*.json")
    out = {"one": [], "several": []}
    for key, tiers in ours.items():
        pick, peer = ours_pick(tiers), torch.get(key, {}).get("pytorch")
        if pick and peer and "median_ms" in peer:
            finalists = len((pick.get("search") or {}).get("finalists") or [])
            out["one" if finalists == 1 else "several"].append(ratio(pick, peer)[0])
    return out


def pytorch_table(paths):
    runs = [(p, against_pytorch(p)) for p in paths if os.path.isdir(p)]
    runs = [(p, d) for p, d in runs if d["one"] and d["several"]]
    if not runs:
        return
    print("\nOur pick against PyTorch (its median over ours), by how many finalists the pick had:\n")
    print("| run | finalists | results | median ratio | below 1.00 | below 0.97 |")
    print("|---|---|---:|---:|---:|---:|")
    for path, d in runs:
        for kind in ("one", "several"):
            r = d[kind]
            print(f"| {path} | {kind} | {len(r)} | {median(r):.3f} | {sum(x < 1 for x in r)} | {sum(x < 0.97 for x in r)} |")


def main(paths):
    if not paths or any(p.startswith("-") for p in paths):
        sys.exit(__doc__)
    lists, single = multi_finalist_results(paths)
    if not lists:
        sys.exit("shortlist.py: no bench result with two or more finalists in " + ", ".join(paths))
    bins = lag_bins(lists)
    overtaken = sum(len(gains) for _, gains in bins.values())
    print(f"Results with two or more finalists: {len(lists)} (one finalist: {single}); the stage picked other "
          f"than the search's fastest in {overtaken}.\n")
    print("| search lag | finalists | won the stage | win rate | gain when it won: median | max |")
    print("|---|---:|---:|---:|---:|---:|")
    for b in sorted(bins):
        count, gains = bins[b]
        gain = f"{median(gains):.1f} % | {max(gains):.1f} %" if gains else " | "
        print(f"| {b * BIN_PERCENT}-{(b + 1) * BIN_PERCENT} % | {count} | {len(gains)} | {100 * len(gains) / count:.0f} % | "
              f"{gain} |")
    pytorch_table(paths)


if __name__ == "__main__":
    main(sys.argv[1:])
