#!/usr/bin/env python3
"""How far our reported figures lie from the same pick's figure in its finalist stage.

`cudnn-install bench` times each configuration's finalists in turn (the stage), then times the
pick alone (the reported figure). Both time the same kernel on the same inputs seconds apart, so
their difference is the variation between timing phases that the spread within one phase does not
show; compare.py chooses the tier on the stage figure and reports the alone figure. A drift that
one setting (such as `--settle-ms 0`) shows and another does not is that setting's effect.

Usage: stage_drift.py [--per-result] RUN...
  RUN  a `cudnn-install bench --json` file, or a run's directory: the bench JSON files in it and in
       its nhwc/ and nchw/ subdirectories
  --per-result  also a table of each result's drift, one column per RUN (results matched by layer,
       type, layout and tier)
"""
import glob
import json
import os
import sys

from compare import picked_stage_ms

THRESHOLD = 0.02  # a drift beyond 2 % is counted: above what one phase's spread usually shows


def read(file):
    try:
        with open(file) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"stage_drift.py: {file}: not a readable JSON file ({e})")


def run_folders(run):
    """Where a run's JSON lies: its directory and the nhwc/ and nchw/ of a run in two calls."""
    return [run, os.path.join(run, "nhwc"), os.path.join(run, "nchw")]


def bench_reports(path):
    """The bench JSON of a file, or of the bench files in a run's directory (read once each)."""
    if os.path.isdir(path):
        found = []
        for folder in run_folders(path):
            found += sorted(glob.glob(os.path.join(folder, "*.json")))
    else:
        found = [path]
    # Other JSON beside them (a shapes list, PyTorch's side) is not ours to read.
    return [data for data in map(read, found) if isinstance(data, dict) and data.get("kind") == "bench"]


def drifts(path):
    """{(layer, type, layout, tier): reported median / stage median - 1} of one RUN."""
    out = {}
    for report in bench_reports(path):
        for r in report.get("results", []):
            stage = picked_stage_ms(r)
            if stage is not None and "median_ms" in r:
                out[(r["shape"], r["dtype"], r["layout"], r["tier"])] = r["median_ms"] / stage - 1
    return out


def summary(runs):
    print("| run | results | reported > 2 % slower than its stage | > 2 % faster | largest slower |")
    print("|---|---:|---:|---:|---:|")
    for name, d in runs:
        v = list(d.values())
        print(f"| {name} | {len(v)} | {sum(x > THRESHOLD for x in v)} | {sum(x < -THRESHOLD for x in v)} | "
              f"{100 * max(v):+.1f} % |")


def per_result(runs):
    keys = sorted(set().union(*(d for _, d in runs)))
    print("\n| layer | type | layout | tier | " + " | ".join(name for name, _ in runs) + " |")
    print("|---|---|---|---|" + "---:|" * len(runs))
    for k in keys:
        cells = [f"{100 * d[k]:+.1f} %" if k in d else "" for _, d in runs]
        print("| " + " | ".join(k) + " | " + " | ".join(cells) + " |")


def main(argv):
    detail = "--per-result" in argv
    paths = [a for a in argv if a != "--per-result"]
    if not paths or any(p.startswith("-") for p in paths):
        sys.exit(__doc__)
    runs = []
    for p in paths:
        d = drifts(p)
        if not d:
            sys.exit(f"stage_drift.py: {p}: no bench result with a finalist stage (a `cudnn-install bench --json` file, "
                     "or a directory of them)")
        runs.append((p, d))
    summary(runs)
    if detail:
        per_result(runs)


if __name__ == "__main__":
    main(sys.argv[1:])
