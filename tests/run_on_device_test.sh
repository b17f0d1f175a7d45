#!/usr/bin/env bash
# bench/run-on-device.sh's modes, run here on stand-ins so that a GPU session's scarce minutes are not
# spent on a script error: a fake cuDNN wheel (nvidia.cudnn), fake nvidia-smi, PyTorch's stand-in
# (tests/support/fake_torch) and a fake cudnn-install in DEVLIBS that answers `bench` with results
# of a committed run (and writes a kernel trace when one is asked for). Checks that every step of the
# kernels, margin-ab, heat-ab, nchw and nhwc (a DTYPES part, with COOL_MS) modes ran, that their reports were written and packed, that the install
# is rolled back and the work tree removed at the end, and that an unknown mode or a kernels run
# without KERNEL_ROWS is refused before any work.
# Usage: run_on_device_test.sh CUDNN_INSTALL   (the real binary: its --list-shapes)
set -euo pipefail
real=${1:?usage: run_on_device_test.sh CUDNN_INSTALL}
real=$(realpath "$real")
repo=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT

home=$w/py/nvidia/cudnn  # the wheel's layout: import nvidia.cudnn; its __path__ is the cuDNN home
mkdir -p "$home/include" "$home/lib" "$w/bin" "$w/dev"
touch "$w/py/nvidia/__init__.py" "$home/__init__.py"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > "$home/include/cudnn_version.h"
echo '#include "cudnn_version.h"' > "$home/include/cudnn.h"
while read -r lib; do echo "stand-in" > "$home/lib/$lib.so.9"; done < "$repo/data/cudnn9-libraries.txt"
printf '#!/bin/sh\nexit 0\n' > "$w/bin/nvidia-smi"
touch "$w/dev/libkernel_trace.so"
cat > "$w/dev/cudnn-install" << PY
#!/usr/bin/env python3
import glob, json, os, sys
args = sys.argv[1:]
if "--list-shapes" in args:
    os.execv("$real", ["$real", "bench", "--list-shapes"])
if args[0] != "bench":  # an install, or the rollback at the end: noted, and the state directory made
    with open("$w/calls.log", "a") as log:
        log.write(" ".join(args) + "\n")
    os.makedirs(os.path.join(args[args.index("--cuda-root") + 1], ".cudnn-install"), exist_ok=True)
    print("installed (stand-in)")
    sys.exit(0)
with open("$w/calls-bench.log", "a") as log:
    log.write(" ".join(args) + "\n")
opt = lambda name, default: args[args.index(name) + 1] if name in args else default
dtypes, layouts = opt("--dtypes", "fp16,bf16").split(","), opt("--layouts", "nhwc").split(",")
tiers, layers = opt("--tiers", "legacy,graph").split(","), opt("--layers", "").split(",")
data, results = None, []
for path in sorted(glob.glob("$repo/bench/results/h200-2026-12-07/*/cudnn-install-*.json")):
    data = json.load(open(path))
    results += [r for r in data["results"] if r["dtype"] in dtypes and r["layout"] in layouts and
                r["tier"] in tiers and any(l in r["shape"] for l in layers)]
data["results"] = results
json.dump(data, sys.stdout)
if os.environ.get("KERNEL_TRACE_OUT"):
    with open(os.environ["KERNEL_TRACE_OUT"], "w") as t:
        t.write("# kernel_trace: 2 kernels traced (0 records dropped), the last 2 follow\n")
        t.write("1\t1001\t0\tsm90_stand_in_kernel\n2\t1002\t0\tsm90_stand_in_kernel\n")
PY
chmod +x "$w/bin/nvidia-smi" "$w/dev/cudnn-install"

device() {  # mode, log: run-on-device.sh as the device call runs it, in a copy of the repository
  (cd "$repo" && env PATH="$w/bin:$PATH" PYTHONPATH="$w/py:$repo/tests/support/fake_torch" DEVLIBS="$w/dev" \
    OUT="$w/out-$1" bash bench/run-on-device.sh "$1") > "$w/$1.log" 2>&1
}
unpack() { mkdir -p "$w/got-$1" && tar -C "$w/got-$1" -xzf "$w/out-$1/results.tar.gz"; }
all_steps_ok() {  # mode, expected step count
  local steps=$w/got-$1/$1/steps.txt
  [ "$(grep -c ': exit 0,' "$steps")" = "$2" ] || fail "$1: not every step exited 0: $(cat "$steps" "$w/$1.log")"
}

export LAYERS="res4 1x1 1024->256,res5 3x3"
device margin-ab || fail "margin-ab exited $?: $(cat "$w/margin-ab.log")"
unpack margin-ab
all_steps_ok margin-ab 6  # install, four margins, PyTorch
for run in run1-margin-5 run2-margin-10 run3-margin-5 run4-margin-10; do
  grep -q "^| res4 1x1 1024->256 @14 | tf32 | nhwc |" "$w/got-margin-ab/margin-ab/comparison-$run.md" ||
    fail "margin-ab: no table of $run"
done
grep -q "comparison-run4-margin-10.md:" "$w/margin-ab.log" || fail "margin-ab: the summary of each run is not printed"
# The script undoes its install with the tool and removes its work tree when it ends.
root=$(sed -n 's/^--rollback --yes -q --cuda-root //p' "$w/calls.log")
[ -n "$root" ] || fail "margin-ab: the install was not rolled back: $(cat "$w/calls.log")"
[ ! -e "$(dirname "$root")" ] || fail "margin-ab: its work tree $(dirname "$root") was left behind"

COOL_MS=20 device heat-ab || fail "heat-ab exited $?: $(cat "$w/heat-ab.log")"
unpack heat-ab
all_steps_ok heat-ab 7  # install, ours twice, PyTorch four times
h=$w/got-heat-ab/heat-ab
for ours in ours-cool-0 ours-cool-20; do
  for torch_run in pytorch-1-cool-0 pytorch-2-cool-20 pytorch-3-cool-0 pytorch-4-cool-20; do
    grep -q "^| res5 3x3 512->512 @7 | fp16 | nhwc |" "$h/comparison-$ours-$torch_run.md" ||
      fail "heat-ab: no table of $ours against $torch_run"
  done
done
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["method"]["cool_ms"] != 20)' \
  "$h/pytorch-4-cool-20/pytorch-nhwc.json" || fail "heat-ab: PyTorch did not idle 20 ms"
grep -q -- "--cool-ms 20" "$w/calls-bench.log" || fail "heat-ab: ours was not run with --cool-ms 20"
grep -q "comparison-ours-cool-20-pytorch-4-cool-20.md:" "$w/heat-ab.log" ||
  fail "heat-ab: the summary of each pair is not printed"

KERNEL_ROWS="res4 1x1 1024->256:tf32:nhwc:graph,res5 3x3:fp16:nchw:legacy,res9 none:fp16:nhwc:graph" device kernels ||
  fail "kernels exited $?: $(cat "$w/kernels.log")"
unpack kernels
all_steps_ok kernels 5  # install, two rows on both sides
grep -q "row 3: 'res9 none' names no single layer" "$w/got-kernels/kernels/steps.txt" || fail "kernels: an unknown layer"
k=$w/got-kernels/kernels/kernels.md
grep -q "^| res4 1x1 1024->256 @14 | tf32 | nhwc | graph |" "$k" || fail "kernels: row 1: $(cat "$k")"
grep -q "^| res5 3x3 512->512 @7 | fp16 | nchw | legacy |" "$k" || fail "kernels: row 2: $(cat "$k")"
grep -q "sm90_stand_in_kernel" "$w/got-kernels/kernels/row1-ours.tsv" || fail "kernels: our trace"
# PyTorch's stand-in loads no injection library: its row says so instead of dropping the row.
grep -qF "no trace (no row1-pytorch.tsv: the library was not loaded)" "$k" || fail "kernels: a missing trace: $(cat "$k")"

device nchw || fail "nchw exited $?: $(cat "$w/nchw.log")"
unpack nchw
all_steps_ok nchw 3
grep -q "^| res4 1x1 1024->256 @14 | fp16 | nchw |" "$w/got-nchw/nchw/comparison.md" || fail "nchw: no table"

# The full table in parts, idling before every pick on both sides: the 16-bit NHWC half.
: > "$w/calls-bench.log"
COOL_MS=20 DTYPES=fp16 device nhwc || fail "nhwc DTYPES=fp16 exited $?: $(cat "$w/nhwc.log")"
unpack nhwc
all_steps_ok nhwc 5  # install, ours, PyTorch, the large 3x3 alone on both sides
n=$w/got-nhwc/nhwc
[ ! -e "$n/cudnn-install-nhwc-32.json" ] || fail "nhwc DTYPES=fp16 also ran the 32-bit half"
grep -q -- "--dtypes fp16 --layouts nhwc --cool-ms 20" "$w/calls-bench.log" ||
  fail "nhwc: ours was not run on fp16 with --cool-ms 20: $(cat "$w/calls-bench.log")"
python3 -c 'import json, sys; d=json.load(open(sys.argv[1])); sys.exit(d["method"]["cool_ms"] != 20 or {r["dtype"] for r in d["results"]} != {"fp16"})' \
  "$n/pytorch-nhwc.json" || fail "nhwc: PyTorch did not idle 20 ms on fp16 alone"
grep -q "^| res5 3x3 512->512 @7 | fp16 | nhwc |" "$n/comparison.md" || fail "nhwc: no fp16 table: $(cat "$n/comparison.md")"
if grep -q "| bf16 | nhwc |" "$n/comparison.md"; then fail "nhwc DTYPES=fp16 has bf16 rows"; fi
for bad in "fp8" "," "fp16,int8"; do
  if DTYPES=$bad device nhwc; then fail "nhwc DTYPES='$bad' must be refused"; fi
  grep -q "DTYPES" "$w/nhwc.log" || fail "nhwc DTYPES='$bad': $(cat "$w/nhwc.log")"
done
if COOL_MS=2s device nchw; then fail "COOL_MS=2s must be refused"; fi
grep -q "COOL_MS='2s' is not a number" "$w/nchw.log" || fail "COOL_MS=2s: $(cat "$w/nchw.log")"

if device fast 2> /dev/null; then fail "an unknown mode must be refused"; fi
grep -q "unknown mode 'fast'" "$w/fast.log" || fail "an unknown mode: $(cat "$w/fast.log")"
[ ! -e "$w/out-fast" ] || fail "an unknown mode did work first"
if KERNEL_ROWS="" device kernels; then fail "kernels without KERNEL_ROWS must be refused"; fi
grep -q "set KERNEL_ROWS=layer:dtype:layout:tier" "$w/kernels.log" || fail "kernels without KERNEL_ROWS: $(cat "$w/kernels.log")"
echo "run-on-device modes: ok"
