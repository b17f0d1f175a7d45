#!/usr/bin/env bash
# bench/compare.py and bench/repeatability.py on committed results: the table of a run, a run
# against itself (no disagreement), and two runs that disagree.
set -euo pipefail
bench=$(cd "$(dirname "$0")/../bench" && pwd)
b=$bench/results/h100-2026-12-07b
c=$bench/results/h100-2026-12-07c
fail() { echo "FAIL: $*" >&2; exit 1; }

table=$(python3 "$bench/compare.py" "$c/nhwc" "$c/nchw")
grep -q "^| res4 1x1 1024->256 @14 | fp16 | nchw | .* | 0.92x \[0.89-0.97\] | \*\*below 1.00\*\* |" <<< "$table" ||
  fail "compare.py: the worst row of the third run"
grep -q "fp16 nchw, ResNet-50 layers: lowest ratio 0.92x (res4 1x1 1024->256 @14), 5 of 14 at or above 1.00" <<< "$table" ||
  fail "compare.py: the FP16 NCHW summary"

self=$(python3 "$bench/repeatability.py" "$c/nhwc" "$c/nchw" -- "$c/nhwc" "$c/nchw")
grep -q "^| PyTorch / ours | 84 | 0.0 % | 0.0 % | 0.0 % |" <<< "$self" || fail "repeatability.py: a run against itself"
grep -q "Rows on different sides of 1.00 in the two runs: 0$" <<< "$self" || fail "repeatability.py: no flips against itself"

two=$(python3 "$bench/repeatability.py" "$b/nhwc" "$b/nchw" -- "$c/nhwc" "$c/nchw")
grep -q "^| ours (kernel time) | 84 | 1.1 % | 6.2 % | 14.0 % |" <<< "$two" || fail "repeatability.py: ours, two runs"
grep -q "At or above 1.00 in run A: 63 of 84; in run B: 50. Rows on different sides of 1.00 in the two runs: 23$" <<< "$two" ||
  fail "repeatability.py: the flips of two runs"

if python3 "$bench/repeatability.py" "$c/nhwc" 2> /dev/null; then fail "repeatability.py without -- must fail"; fi
echo "bench scripts: ok"
