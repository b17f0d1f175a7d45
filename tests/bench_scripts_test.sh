#!/usr/bin/env bash
# bench/compare.py, bench/repeatability.py, bench/stage_drift.py and bench/shortlist.py on committed
# results: the table of a run, a run against itself (no disagreement), two runs that disagree, the
# drift between a pick's stage and reported figures, how the stage reorders the search's short
# list; bench/pytorch_conv.py on a fake PyTorch.
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

d=$bench/results/h100-2026-12-07d
drift=$(python3 "$bench/stage_drift.py" "$d" "$c")
grep -qF "| $d | 150 | 15 | 5 | +5.8 % |" <<< "$drift" || fail "stage_drift.py: the fourth run"
grep -qF "| $c | 150 | 27 | 8 | +11.5 % |" <<< "$drift" || fail "stage_drift.py: the third run"
ab=$(python3 "$bench/stage_drift.py" --per-result "$d/settle-ab/run1-settle-0.json" "$d/settle-ab/run4-settle-1000.json")
grep -qF "| res4 3x3 256->256 @14 | fp16 | nhwc | legacy | -2.4 % | +6.8 % |" <<< "$ab" || fail "stage_drift.py: a result's drift"
if python3 "$bench/stage_drift.py" "$d/nhwc/gpu.txt" 2> /dev/null; then fail "stage_drift.py on a text file must fail"; fi
if python3 "$bench/stage_drift.py" "$bench/results/h200-2026-12-02" 2> /dev/null; then
  fail "stage_drift.py on a run without a finalist stage must fail"
fi

h=$bench/results/h200-2026-12-07
short=$(python3 "$bench/shortlist.py" "$h")
grep -qF "two or more finalists: 71 (one finalist: 80); the stage picked other than the search's fastest in 31." <<< "$short" ||
  fail "shortlist.py: the counts of a run"
grep -qF "| 1-2 % | 33 | 5 | 15 % | 3.0 % | 3.6 % |" <<< "$short" || fail "shortlist.py: a lag bin"
grep -qF "| 4-5 % | 13 | 0 | 0 % |  |  |" <<< "$short" || fail "shortlist.py: a bin no finalist won"
grep -qF "| $h | one | 44 | 1.011 | 12 | 2 |" <<< "$short" || fail "shortlist.py: one-finalist picks against PyTorch"
grep -qF "| $h | several | 46 | 1.007 | 16 | 1 |" <<< "$short" || fail "shortlist.py: the other picks against PyTorch"
if grep -q "against PyTorch" <<< "$(python3 "$bench/shortlist.py" "$h/nhwc/cudnn-install-nhwc-32.json")"; then
  fail "shortlist.py: a bench file alone has no PyTorch side to compare"
fi
if python3 "$bench/shortlist.py" "$bench/results/h200-2026-12-02" 2> /dev/null; then
  fail "shortlist.py on a run without finalists must fail"
fi

# pytorch_conv.py against a stand-in for PyTorch (tests/support/fake_torch): each conv2d costs
# 1e-6 * N * C * K ms of a fake clock, so the layer below takes 0.0256 ms by every method.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/shapes.json" << 'JSON'
[{"name": "fake 1x1", "n": 8, "c": 40, "h": 7, "w": 7, "k": 80, "r": 1, "s": 1, "stride": 1, "pad": 0, "flops": 2.0e9}]
JSON
PYTHONPATH=$(dirname "$0")/support/fake_torch python3 "$bench/pytorch_conv.py" "$work/shapes.json" fp16,tf32 nhwc,nchw \
  > "$work/pytorch.json" 2> "$work/pytorch.log" || fail "pytorch_conv.py: $(cat "$work/pytorch.log")"
python3 - "$work/pytorch.json" << 'PY' || fail "pytorch_conv.py: its JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"]["settle_ms"] == 1000 and d["method"]["timing"]["warmup_ms"] == 200, d["method"]
assert [(r["dtype"], r["layout"]) for r in d["results"]] == [("fp16", "nhwc"), ("fp16", "nchw"), ("tf32", "nhwc"), ("tf32", "nchw")]
for r in d["results"]:
    for m in ("cuda_graph", "back_to_back", "single_call"):
        assert r["timings"][m]["measured"] and abs(r["timings"][m]["ms_per_execution"]["median"] - 0.0256) < 1e-9, r
    assert abs(r["tflops"] - 2.0e9 / 0.0256e-3 / 1e12) < 1e-6, r
PY
echo "bench scripts: ok"
