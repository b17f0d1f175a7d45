#!/usr/bin/env bash
# bench/kernel_trace.c: it builds against this machine's CUPTI, and a process that loads it writes
# its trace file at exit, with CUPTI's error where there is no GPU (skipped, exit 77, without the
# CUDA toolkit's CUPTI). bench/kernels.py on made-up traces: same kernels, different kernels, a
# trace with CUPTI's error, a missing file.
set -euo pipefail
bench=$(cd "$(dirname "$0")/../bench" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# kernels.py: row 1 runs the same kernels on both sides, row 2 a different one, row 3 has no trace.
ours() {  # index, tier, median ms
  printf '{"results": [{"shape": "res4 3x3 256->256 @14", "dtype": "fp16", "layout": "nhwc", "tier": "%s", '\
'"median_ms": %s, "algorithm": "engine 7"}]}\n' "$2" "$3" > "$work/row$1-ours.json"
}
torch() { printf '{"results": [{"shape": "res4 3x3 256->256 @14", "median_ms": %s}]}\n' "$2" > "$work/row$1-pytorch.json"; }
records() {  # file, count, name, ns each: COUNT kernels of NAME after 200 older ones of "search"
  { echo "# kernel_trace: 999 kernels traced (0 records dropped), the last 512 follow (start_ns end_ns graph_id name)"
    for i in $(seq 200); do printf '%d\t%d\t0\tsearch\n' "$i" "$((i + 5))"; done
    for i in $(seq "$2"); do printf '%d\t%d\t0\t%s\n' "$((1000 * i))" "$((1000 * i + $4))" "$3"; done; } > "$1"
}
ours 1 graph 0.100; torch 1 0.099
records "$work/row1-ours.tsv" 64 sm90_xmma_fprop_a 98000
records "$work/row1-pytorch.tsv" 64 sm90_xmma_fprop_a 97000
ours 2 legacy 0.200; torch 2 0.210
records "$work/row2-ours.tsv" 64 sm90_xmma_fprop_b 190000
records "$work/row2-pytorch.tsv" 64 sm80_xmma_fprop_c 200000
ours 3 graph 0.300; torch 3 0.300
printf '# kernel_trace: error: cuptiActivityEnable: CUPTI_ERROR_UNKNOWN (999)\n' > "$work/row3-ours.tsv"
records "$work/row3-pytorch.tsv" 64 x 1000
ours 4 graph 0.300  # no PyTorch side
# Traces with the launch column: one kernel name launched with other clusters is another kernel
# (row 5); the same launch is the same (row 6, gzipped as committed results are).
launches() {  # file, cluster: 64 launches of one kernel with that cluster
  { echo "# kernel_trace: 64 kernels traced (0 records dropped), the last 64 follow (start_ns end_ns graph_id launch name)"
    for i in $(seq 64); do printf '%d\t%d\t0\tgrid=132,1,1 block=384,1,1 cluster=%s\tsm90_xmma_fprop_d\n' "$((1000 * i))" "$((1000 * i + 50000))" "$2"; done; } > "$1"
}
ours 5 graph 0.050; torch 5 0.050
launches "$work/row5-ours.tsv" 1,2,1
launches "$work/row5-pytorch.tsv" 1,1,1
ours 6 graph 0.050; torch 6 0.050
launches "$work/row6-ours.tsv" 1,2,1
launches "$work/row6-pytorch.tsv" 1,2,1
gzip "$work/row6-ours.tsv" "$work/row6-pytorch.tsv"
table=$(python3 "$bench/kernels.py" "$work")
[ "$(grep -c "| graph | 1.000x | \*\*different\*\* | 50.0 | 50.0 |" <<< "$table")" = 1 ] ||
  fail "kernels.py: one kernel launched with other clusters: $table"
[ "$(grep -c "| graph | 1.000x | same | 50.0 | 50.0 |" <<< "$table")" = 1 ] || fail "kernels.py: gzipped traces: $table"
# shellcheck disable=SC2016 # the backquotes are markdown, not a command
grep -qF '`sm90_xmma_fprop_d [grid=132,1,1 block=384,1,1 cluster=1,2,1]` ×64, 50.0 us' <<< "$table" ||
  fail "kernels.py: a kernel's launch shape: $table"
grep -qF "| res4 3x3 256->256 @14 | fp16 | nhwc | graph | 0.990x | same | 98.0 | 97.0 |" <<< "$table" || fail "kernels.py: same kernels"
grep -qF "| res4 3x3 256->256 @14 | fp16 | nhwc | legacy | 1.050x | **different** | 190.0 | 200.0 |" <<< "$table" ||
  fail "kernels.py: different kernels"
grep -qF "no trace (cuptiActivityEnable: CUPTI_ERROR_UNKNOWN (999))" <<< "$table" || fail "kernels.py: CUPTI's error"
grep -qF "| row 4 | | | | | not measured: [Errno 2] No such file or directory" <<< "$table" || fail "kernels.py: a missing file"
# shellcheck disable=SC2016 # the backquotes are markdown, not a command
grep -qF '`sm90_xmma_fprop_b` ×64, 190.0 us' <<< "$table" || fail "kernels.py: a row's kernels"
if grep -q search <<< "$table"; then fail "kernels.py: kernels before the last 64 were counted"; fi
if python3 "$bench/kernels.py" "$work/none" 2> /dev/null; then fail "kernels.py on no directory must fail"; fi

# The injection library, loaded as CUDA would load it (CUDA_INJECTION64_PATH) by a process that calls
# its InitializeInjection: the trace file is written at exit, whatever CUPTI said.
# Without nvcc on PATH (as on CI) the toolkit is found through /usr/local/cuda, itself a symlink.
# nvcc's directory leaves PATH only when it is the toolkit's own (not /usr/bin, which gcc needs).
path_without_nvcc=$PATH
if nvcc=$(command -v nvcc) && [ "$(dirname "$nvcc")" != "$(dirname "$(command -v gcc)")" ]; then
  path_without_nvcc=$(tr : '\n' <<< "$PATH" | grep -vxF "$(dirname "$nvcc")" | paste -sd:)
fi
rc=0
PATH=$path_without_nvcc bash "$bench/build-kernel-trace.sh" "$work/lib" > /dev/null || rc=$?
[ "$rc" = 77 ] && { echo "bench kernels: kernels.py ok; no CUPTI headers, the injection library was not built"; exit 77; }
[ "$rc" = 0 ] || fail "build-kernel-trace.sh exited $rc"
nm -D --defined-only "$work/lib/libkernel_trace.so" | grep -q " T InitializeInjection$" || fail "InitializeInjection is not exported"
KERNEL_TRACE_OUT=$work/trace.tsv python3 -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()' \
  "$work/lib/libkernel_trace.so" || fail "a process that loads the library failed"
head -2 "$work/trace.tsv" | grep -qE "^# kernel_trace: [0-9]+ kernels traced \([0-9]+ records dropped\).*launch name" ||
  fail "the trace file: $(cat "$work/trace.tsv")"
echo "bench kernels: ok"
