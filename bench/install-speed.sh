#!/usr/bin/env bash
# Install speed of cudnn-install against copying by hand, measured side by side in one run on
# real-layout cuDNN archives packed from this machine's toolkit (scripts/make-test-archive.sh):
# a small one and a full one (every sub-library), as Linux tar.xz and as a Windows-layout zip.
# Each figure is the median of RUNS runs (default 3); ratios are against the baseline of the same run.
# Usage: bench/install-speed.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
bin=$PWD/build/release/app/cudnn-install
cache=$PWD/build/speed-cache
for size in small full; do
  [ -f "$cache/$size/redistrib_local.json" ] || scripts/make-test-archive.sh "--$size" --windows "$cache/$size" >/dev/null
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
tree() {  # a fresh CUDA 13.0 tree of the given layout
  rm -rf "$work/cuda"; mkdir -p "$work/cuda/include" "$work/cuda/lib"
  echo "#define CUDA_VERSION 13000" > "$work/cuda/include/cuda.h"
  if [ "$1" = windows ]; then mkdir -p "$work/cuda/bin/x64"; echo MZ > "$work/cuda/bin/x64/cudart64_13.dll"; else ln -s lib "$work/cuda/lib64"; fi
  rm -rf "$work/unpack"; mkdir -p "$work/unpack"; sync
}
# $EPOCHREALTIME (bash 5) reads the clock without starting a process, which $(date) would add to each figure.
seconds() { local s e; s=$EPOCHREALTIME; "$@" >/dev/null 2>&1; e=$EPOCHREALTIME; echo "$e - $s" | bc; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
peak_kib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
# No $(...) inside a timed command: a command substitution forks a subshell (about 1 ms here).
tool() { "$bin" --yes -q --no-verify --loader-config=none --manifest "$manifest" --cuda-root "$work/cuda" "$@"; }
undo() { "$bin" --rollback --yes -q --cuda-root "$work/cuda"; }  # the install's flags are usage errors here

baseline_tar() { tar -xJf "$archive" -C "$work/unpack" && cp -a "$work/unpack"/*/include/. "$work/cuda/include/" && cp -a "$work/unpack"/*/lib/. "$work/cuda/lib/"; }
baseline_zip() { unzip -q "$archive" -d "$work/unpack" && cp -r "$work/unpack"/*/include/. "$work/cuda/include/" && cp -r "$work/unpack"/*/bin/x64/. "$work/cuda/bin/x64/" && mkdir -p "$work/cuda/lib/x64" && cp -r "$work/unpack"/*/lib/x64/. "$work/cuda/lib/x64/"; }

# The issue's targets, checked on the medians of this run (the figures above them are the evidence).
verdicts=() missed=0
check() {  # what ratio limit
  local verdict="meets "
  [ "$(echo "$2 <= $3" | bc -l)" = 1 ] || { verdict="MISSES"; missed=$((missed + 1)); }
  verdicts+=("$(printf "  %s %-44s %6.3f (target <= %s)" "$verdict" "$1" "$2" "$3")")
}

measure() {  # label layout archive baseline-function first-install-target
  local label=$1; shift
  local layout=$1 base=$3 limit=$4 b=() f=() r=() rb=() d=()
  archive=$2 manifest=${2%/*}/redistrib_local.json
  local mb=""
  for _ in $(seq "$runs"); do
    tree "$layout"; b+=("$(seconds "$base")")
    [ -n "$mb" ] || mb=$(du -sm "$work/unpack" | cut -f1)
    tree "$layout"; f+=("$(seconds tool "$archive")")
    r+=("$(seconds tool "$archive")")           # identical reinstall
    rb+=("$(seconds undo)")
    tree "$layout"; d+=("$(seconds tool --dry-run "$archive")")  # a fresh tree: nothing remembered
  done
  tree "$layout"; local mem; mem=$(peak_kib "$bin" --yes -q --no-verify --loader-config=none --manifest "$manifest" --cuda-root "$work/cuda" "$archive")
  local B F R RB D first reinstall rollback
  B=$(printf '%s\n' "${b[@]}" | median); F=$(printf '%s\n' "${f[@]}" | median); R=$(printf '%s\n' "${r[@]}" | median)
  RB=$(printf '%s\n' "${rb[@]}" | median); D=$(printf '%s\n' "${d[@]}" | median)
  first=$(echo "$F / $B" | bc -l) reinstall=$(echo "$R / $F" | bc -l) rollback=$(echo "$RB / $F" | bc -l)
  printf "| %-40s | %6s | %7.3f s | %7.3f s (%.2fx) | %6.1f ms (%.3fx of install) | %6.1f ms (%.3fx of install) | %6.3f s | %4d MiB |\n" \
    "$(basename "$archive")" "$mb" "$B" "$F" "$first" "$(echo "$R * 1000" | bc -l)" "$reinstall" \
    "$(echo "$RB * 1000" | bc -l)" "$rollback" "$D" "$((mem / 1024))"
  check "$label: first install / by hand" "$first" "$limit"
  check "$label: identical reinstall / install" "$reinstall" 0.1
  check "$label: rollback / install" "$rollback" 0.2
}

echo "| archive | unpacked (MiB) | baseline (tar+cp / unzip+cp) | first install (ratio) | identical reinstall | rollback | dry-run | peak RSS |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for size in small full; do
  measure "$size tar.xz" linux "$(ls "$cache/$size"/cudnn-linux-*.tar.xz)" baseline_tar 1.1
  measure "$size zip" windows "$(ls "$cache/$size"/cudnn-windows-*.zip)" baseline_zip 0.8
done

# The dry run of a zip as large as NVIDIA's Windows 9.x zips (700 MB, the issue's figure): the full
# zip, then DLLs stored a second time under bin/x64/extra/ (not installed) until it is 700 MB. A
# dry run reads the central directory and cudnn_version.h, and hashes the whole file.
big=$cache/big700
if [ ! -f "$big/redistrib_local.json" ]; then
  mkdir -p "$big"
  python3 - "$(ls "$cache"/full/cudnn-windows-*.zip)" "$big" <<'PY'
import copy, hashlib, json, os, sys, zipfile
src, out = sys.argv[1], sys.argv[2]
dst = os.path.join(out, os.path.basename(src))
target = 700_000_000
with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
    infos = zin.infolist()
    for info in infos:
        # (a copy: writestr sets the offsets of the ZipInfo it gets, and zin reads through it)
        zout.writestr(copy.copy(info), zin.read(info.filename), compress_type=zipfile.ZIP_DEFLATED)
    for info in infos:
        if not info.filename.endswith(".dll"):
            continue
        data = zin.read(info.filename)
        room = target - zout.fp.tell() - 100_000  # leave room for the central directory
        if room <= 0:
            break
        zout.writestr(info.filename.replace("/bin/x64/", "/bin/x64/extra/"), data[:room], compress_type=zipfile.ZIP_STORED)
h = hashlib.sha256(open(dst, "rb").read()).hexdigest()
name = os.path.basename(dst)
json.dump({"cudnn": {name: {"relative_path": "local/" + name, "sha256": h, "size": str(os.path.getsize(dst))}}},
          open(os.path.join(out, "redistrib_local.json"), "w"))
PY
fi
archive=$(ls "$big"/cudnn-windows-*.zip) manifest=$big/redistrib_local.json
d=()
for _ in $(seq "$runs"); do tree windows; d+=("$(seconds tool --dry-run "$archive")"); done
D=$(printf '%s\n' "${d[@]}" | median)
printf "\ndry run of a %d MB zip (fresh tree): %.2f s (median of %d)\n" "$(( $(stat -c %s "$archive") / 1000000 ))" "$D" "$runs"
check "dry run of the 700 MB zip, seconds" "$D" 0.5

# The floor under every figure: starting the process (loading its shared libraries) and nothing else.
v=()
for _ in $(seq $((runs * 5))); do v+=("$(seconds "$bin" --version)"); done
printf "process start alone (cudnn-install --version): %.1f ms (median of %d)\n" \
  "$(echo "$(printf '%s\n' "${v[@]}" | median) * 1000" | bc -l)" "$((runs * 5))"
# What the loader maps at that start.
echo "shared libraries loaded at start: $(objdump -p "$bin" | awk '/NEEDED/ {printf "%s ", $2}')"

echo
if [ "$missed" = 0 ]; then echo "targets: all ${#verdicts[@]} met"; else echo "targets: $missed of ${#verdicts[@]} MISSED"; fi
printf '%s\n' "${verdicts[@]}"
