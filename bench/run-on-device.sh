#!/usr/bin/env bash
# A measurement on a GPU machine (the lent H200), both sides in the same run: pack the machine's
# own cuDNN into a real-layout archive, install it into a sandbox CUDA tree (verify + the short
# post-install bench), then `cudnn-install bench` and bench/pytorch_conv.py on the same layers,
# timed the same way (see bench/README.md).
#
# Usage (from the repository root): run-on-device.sh nhwc|nchw|smoke|settle-ab|kernels|margin-ab|heat-ab
#   nhwc       15 layers, FP16/BF16 (both tiers) and TF32/FP32 (graph tier) NHWC
#   nchw       15 layers, FP16/BF16 NCHW (both tiers)
#   smoke      three layers, FP16 and FP32 NHWC, and the large 3x3 timed on exact inputs too
#   settle-ab  ours only, FP16 NCHW and NHWC of two res4 layers (or LAYERS), four times with
#              --settle-ms 0, 1000, 0, 1000; drift.md: bench/stage_drift.py on the four
#   kernels    KERNEL_ROWS="res5 1x1 2048->512:tf32:nhwc:graph,..." (layer:dtype:layout:tier): each row
#              on both sides in a process of its own with bench/kernel_trace.c injected
#              ($DEVLIBS/libkernel_trace.so, from bench/build-kernel-trace.sh); kernels.md:
#              bench/kernels.py, whether both sides' picks ran the same kernels
#   margin-ab  ours with --finalist-margin 5, 10, 5, 10 (MARGINS="5,10,5,10"), graph tier, NHWC,
#              DTYPES (default tf32), then PyTorch once; comparison-<i>-margin-<pct>.md per run
#   heat-ab    whether an idle GPU before the timing moves each side's figure: ours with --cool-ms 0
#              and COOL_MS (default 3000), then PyTorch with PYTORCH_COOL_MS 0, COOL_MS, 0, COOL_MS,
#              graph tier, NHWC, LAYERS (default: five of the rows below 1.00) and DTYPES (default
#              tf32,fp16); comparison-<ours>-<pytorch>.md for each pair
# LAYERS="res3 3x3,large" (names or parts of names, comma-separated) limits nhwc and nchw to those
# layers on both sides: a check of a few rows when device time is short. DTYPES="fp16,bf16" limits
# nhwc to those data types (fp16, bf16, tf32, fp32). COOL_MS=2000 in nhwc, nchw and smoke idles the
# GPU that long before each pick's reported timing, on both sides (--cool-ms, PYTORCH_COOL_MS); each
# step's time limit grows by it.
# One call of the device tool runs at most 10 minutes, so the full table is two runs, nhwc then
# nchw, on the same machine. Expects a cudnn-install and the shared libraries it needs in $DEVLIBS
# (default .devcarry/, see bench/README.md). Everything is packed into $OUT/results.tar.gz (default
# bench/results/) after each step, so a run cut short still returns what it measured.
set -uo pipefail
mode=${1:?usage: run-on-device.sh nhwc|nchw|smoke|settle-ab|kernels|margin-ab|heat-ab}
case $mode in
  nhwc | nchw | smoke | settle-ab | kernels | margin-ab | heat-ab) ;;
  *) echo "run-on-device.sh: unknown mode '$mode' (nhwc, nchw, smoke, settle-ab, kernels, margin-ab or heat-ab)" >&2; exit 1 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
libs=${DEVLIBS:-$PWD/.devcarry}
if [ "$mode" = kernels ]; then
  [ -n "${KERNEL_ROWS:-}" ] || { echo "run-on-device.sh kernels: set KERNEL_ROWS=layer:dtype:layout:tier,..." >&2; exit 1; }
  [ -f "$libs/libkernel_trace.so" ] || { echo "run-on-device.sh kernels: no $libs/libkernel_trace.so (bench/build-kernel-trace.sh)" >&2; exit 1; }
fi
[[ ${COOL_MS:-0} =~ ^[0-9]{1,5}$ ]] || { echo "run-on-device.sh: COOL_MS='${COOL_MS:-}' is not a number of milliseconds" >&2; exit 1; }
if [ "$mode" = nhwc ] && [ -n "${DTYPES+set}" ]; then
  [ -n "${DTYPES//,/}" ] || { echo "run-on-device.sh nhwc: DTYPES is empty: name some of fp16, bf16, tf32, fp32" >&2; exit 1; }
  for dtype in ${DTYPES//,/ }; do
    case $dtype in
      fp16 | bf16 | tf32 | fp32) ;;
      *) echo "run-on-device.sh nhwc: DTYPES: '$dtype' is not one of fp16, bf16, tf32, fp32" >&2; exit 1 ;;
    esac
  done
fi
dest=${OUT:-bench/results}
work=$(mktemp -d)
out=$work/$mode
mkdir -p "$out" "$dest"
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PYTHONUNBUFFERED=1
bin=$libs/cudnn-install
start=$(date +%s)
pack() { tar -C "$work" -czf "$dest/results.tar.gz.part" "$mode" && mv "$dest/results.tar.gz.part" "$dest/results.tar.gz"; }
step() {  # file, seconds allowed, command...: stdout to the file, stderr to its .log
  local file=$1 limit=$2 s rc
  s=$(date +%s)
  shift 2
  echo "$file,start,$(date '+%Y/%m/%d %H:%M:%S.%3N')" >> "$out/steps.csv"
  timeout "$limit" "$@" > "$out/$file" 2> "$out/${file%.*}.log"
  rc=$?
  echo "$file,end,$(date '+%Y/%m/%d %H:%M:%S.%3N')" >> "$out/steps.csv"
  echo "$file: exit $rc, $(( $(date +%s) - s )) s (at $(( $(date +%s) - start )) s)" | tee -a "$out/steps.txt"
  pack
}
bench() { step "$1" "$2" "$bin" bench --cuda-root "$root" --json "${@:3}"; }
pytorch() { step "$1" "$2" python3 "$here/pytorch_conv.py" "$work/shapes.json" "${@:3}"; }
# The SM clock, power and active clock-limit reasons every 100 ms for the whole run (power.csv), and
# each step's start and end on the same clock (steps.csv), to tell which steps ran power-capped.
field=clocks_event_reasons.active
nvidia-smi --query-gpu=$field --format=csv -c 1 > /dev/null 2>&1 || field=clocks_throttle_reasons.active
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,$field --format=csv -lms 100 > "$out/power.csv" 2>&1 &
sampler=$!
# At the end (results are packed after every step): the install undone by the tool itself (its
# loader entry in /etc/ld.so.conf.d would otherwise name a deleted directory), then the work tree.
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  kill "$sampler" 2> /dev/null
  [ -d "${root:-}/.cudnn-install" ] && "$bin" --rollback --yes -q --cuda-root "$root" > /dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
  python3 -c 'import torch; print("torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'; } > "$out/gpu.txt" 2>&1
cudnn_home=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)
archive=$(CUDNN_HOME=$cudnn_home CUDA_MAJOR=13 bash scripts/make-test-archive.sh --full "$work/dl" | head -1)
manifest=$(dirname "$archive")/redistrib_local.json  # the digest of this repack, not NVIDIA's
root=$work/cuda-13.0
mkdir -p "$root/include" "$root/lib" "$root/bin" && ln -s lib "$root/lib64"
echo "#define CUDA_VERSION 13000" > "$root/include/cuda.h"
step install.txt 120 "$bin" --yes --manifest "$manifest" --cuda-root "$root" "$archive"
"$bin" bench --list-shapes > "$work/shapes.json"
keep_layers() {  # shapes.json, output, comma-separated parts of layer names[, the count it must keep]
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); k=[x for x in s if any(l in x['name'] for l in sys.argv[3].split(','))]; json.dump(k, open(sys.argv[2], 'w')); sys.exit(len(sys.argv) > 4 and len(k) != int(sys.argv[4]))" "$@"
}
only=()
if [ -n "${LAYERS:-}" ]; then
  keep_layers "$work/shapes.json" "$work/shapes.json" "$LAYERS"
  only=(--layers "$LAYERS")
fi
# The full table's modes idle COOL_MS before every pick's timing on both sides; a step's limit grows
# by that idle times its picks (layers x data types x tiers).
cool=0
case $mode in nhwc | nchw | smoke) cool=${COOL_MS:-0} ;; esac
cool_args=(--cool-ms "$cool")
export PYTORCH_COOL_MS=$cool
idle() {  # base seconds, picks per layer: the limit for the layers shapes.json holds now
  local layers
  layers=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))))" "$work/shapes.json")
  echo $(( $1 + cool * layers * $2 / 1000 ))
}
has() { [[ ",$wanted," == *",$1,"* ]]; }
wanted=fp16,bf16,tf32,fp32
[ "$mode" = nhwc ] && wanted=${DTYPES:-$wanted}
pick() { local d kept=(); for d in "$@"; do has "$d" && kept+=("$d"); done; (IFS=,; echo "${kept[*]}"); }

case $mode in
  smoke)
    layers="res2 1x1 64->64,res4 1x1 1024->256,large"
    keep_layers "$work/shapes.json" "$work/shapes.json" "$layers"
    bench cudnn-install-nhwc.json "$(idle 200 4)" --layers "$layers" --dtypes fp16,fp32 "${cool_args[@]}"
    bench exact-large.json 60 --layers large --dtypes fp16 --tiers graph --timing-data exact
    pytorch pytorch-nhwc.json "$(idle 120 2)" fp16,fp32 nhwc ;;
  nhwc)
    half=$(pick fp16 bf16)
    single=$(pick tf32 fp32)
    [ -z "$half" ] || bench cudnn-install-nhwc-16.json "$(idle 300 4)" --dtypes "$half" --layouts nhwc \
      "${cool_args[@]}" "${only[@]}"
    [ -z "$single" ] || bench cudnn-install-nhwc-32.json "$(idle 220 2)" --dtypes "$single" --layouts nhwc \
      --tiers graph "${cool_args[@]}" "${only[@]}"
    pytorch pytorch-nhwc.json "$(idle 200 4)" "$(pick fp16 bf16 tf32 fp32)" nhwc
    # The large 3x3 FP16 alone, on both sides, for its clock and power in power.csv.
    if has fp16; then
      keep_layers "$work/shapes.json" "$work/large.json" large
      bench power-ours-large.json 60 --layers large --dtypes fp16 --tiers graph
      PYTORCH_COOL_MS=0 step power-pytorch-large.json 60 python3 "$here/pytorch_conv.py" "$work/large.json" fp16 nhwc
    fi ;;
  nchw)
    bench cudnn-install-nchw.json "$(idle 300 4)" --dtypes fp16,bf16 --layouts nchw "${cool_args[@]}" "${only[@]}"
    pytorch pytorch-nchw.json "$(idle 120 2)" fp16,bf16 nchw ;;
  settle-ab)
    ab_layers=${LAYERS:-res4 1x1 1024->256,res4 3x3}
    runs=()
    for i in 1 2 3 4; do
      settle=$(( (i + 1) % 2 * 1000 ))
      bench "run$i-settle-$settle.json" 90 --layers "$ab_layers" --dtypes fp16 --layouts nchw,nhwc --settle-ms "$settle"
      runs+=("$out/run$i-settle-$settle.json")
    done
    python3 "$here/stage_drift.py" --per-result "${runs[@]}" > "$out/drift.md" 2>> "$out/compare.log" ;;
  kernels)
    i=0
    IFS=, read -ra rows <<< "$KERNEL_ROWS"
    for spec in "${rows[@]}"; do
      IFS=: read -r layer dtype layout tier <<< "$spec"
      i=$((i + 1))
      if ! keep_layers "$work/shapes.json" "$work/row$i.json" "$layer" 1; then
        echo "row $i: '$layer' names no single layer of bench --list-shapes: skipped" | tee -a "$out/steps.txt"
        continue
      fi
      # Assignments before a function call reach the commands it runs.
      CUDA_INJECTION64_PATH=$libs/libkernel_trace.so KERNEL_TRACE_OUT=$out/row$i-ours.tsv \
        bench "row$i-ours.json" 90 --layers "$layer" --dtypes "$dtype" --layouts "$layout" --tiers "${tier:-graph}"
      CUDA_INJECTION64_PATH=$libs/libkernel_trace.so KERNEL_TRACE_OUT=$out/row$i-pytorch.tsv \
        step "row$i-pytorch.json" 60 python3 "$here/pytorch_conv.py" "$work/row$i.json" "$dtype" "$layout"
    done
    python3 "$here/kernels.py" "$out" > "$out/kernels.md" 2>> "$out/compare.log" ;;
  margin-ab)
    ab_dtypes=${DTYPES:-tf32}
    IFS=, read -ra margins <<< "${MARGINS:-5,10,5,10}"
    mkdir -p "$out/pytorch"
    i=0
    for pct in "${margins[@]}"; do
      i=$((i + 1))
      mkdir -p "$out/run$i-margin-$pct"
      bench "run$i-margin-$pct/cudnn-install-nhwc.json" 150 --dtypes "$ab_dtypes" --layouts nhwc --tiers graph \
        --finalist-margin "$pct" "${only[@]}"
    done
    pytorch pytorch/pytorch-nhwc.json 100 "$ab_dtypes" nhwc
    for run in "$out"/run*-margin-*/; do
      python3 "$here/compare.py" "$run" "$out/pytorch" > "$out/comparison-$(basename "$run").md" 2>> "$out/compare.log"
    done ;;
  heat-ab)
    ab_layers=${LAYERS:-res4 1x1 1024->256,res4 1x1 256->1024,res3 1x1 128->512,res5 3x3,res2 3x3}
    ab_dtypes=${DTYPES:-tf32,fp16}
    keep_layers "$work/shapes.json" "$work/ab.json" "$ab_layers"
    cool=${COOL_MS:-3000}
    for ms in 0 "$cool"; do
      mkdir -p "$out/ours-cool-$ms"
      bench "ours-cool-$ms/cudnn-install-nhwc.json" 150 --layers "$ab_layers" --dtypes "$ab_dtypes" --layouts nhwc \
        --tiers graph --cool-ms "$ms"
    done
    i=0
    for ms in 0 "$cool" 0 "$cool"; do
      i=$((i + 1))
      mkdir -p "$out/pytorch-$i-cool-$ms"
      PYTORCH_COOL_MS=$ms step "pytorch-$i-cool-$ms/pytorch-nhwc.json" 150 \
        python3 "$here/pytorch_conv.py" "$work/ab.json" "$ab_dtypes" nhwc
    done
    for ours in "$out"/ours-cool-*/; do
      for torch_run in "$out"/pytorch-*-cool-*/; do
        python3 "$here/compare.py" "$ours" "$torch_run" \
          > "$out/comparison-$(basename "$ours")-$(basename "$torch_run").md" 2>> "$out/compare.log"
      done
    done ;;
esac
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >> "$out/gpu.txt" 2>&1
kill $sampler 2> /dev/null
case $mode in
  settle-ab | kernels | margin-ab | heat-ab) ;;
  *) python3 "$here/compare.py" "$out" > "$out/comparison.md" 2>> "$out/compare.log" ;;
esac
[ -s "$out/steps.csv" ] && python3 "$here/power_summary.py" "$out/power.csv" "$out/steps.csv" > "$out/power.md" 2>> "$out/compare.log"
pack
for report in steps.txt comparison.md drift.md kernels.md power.md; do  # each mode writes some of them
  [ -f "$out/$report" ] && cat "$out/$report"
done
if [ "$mode" = margin-ab ] || [ "$mode" = heat-ab ]; then
  for report in "$out"/comparison-*.md; do
    echo "$(basename "$report"):" && grep "ResNet-50 layers" "$report"
  done
fi
exit 0
