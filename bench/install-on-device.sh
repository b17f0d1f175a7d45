#!/usr/bin/env bash
# The install path end to end on a GPU machine (the lent H200), in one call: pack the machine's own
# cuDNN into a real-layout tar.xz, install it into a sandbox CUDA 13.0 tree (spool, verify with the
# GPU, the short post-install benchmark), install it again (remembered: nothing read or written),
# doctor, status, then --rollback and a check that the tree is as before; then the same cuDNN as a
# Windows-layout zip against unzip + cp -r (inflated on several cores). Expects $DEVLIBS (default .devcarry/) as
# bench/README.md describes. Results go to $OUT (default bench/results).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-bench/results}/install-on-device
mkdir -p "$out"
libs=${DEVLIBS:-$PWD/.devcarry}
export LD_LIBRARY_PATH=$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$libs/cudnn-install
nvidia-smi -L | tee "$out/gpu.txt"
cudnn_home=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)
work=$(mktemp -d)
archive=$(CUDNN_HOME=$cudnn_home CUDA_MAJOR=13 bash scripts/make-test-archive.sh --full "$work/dl" | head -1)
manifest=$(dirname "$archive")/redistrib_local.json
root=$work/cuda-13.0
mkdir -p "$root/include" "$root/lib" "$root/bin" && ln -s lib "$root/lib64"
echo "#define CUDA_VERSION 13000" > "$root/include/cuda.h"
before=$(cd "$root" && find . -path ./.cudnn-install -prune -o -print | sort | xargs -d '\n' sha256sum 2>/dev/null | sha256sum)
run() {  # name, command...: output and wall time into $out/name.txt
  local name=$1; shift
  local s e; s=$(date +%s.%N); "$@" > "$out/$name.txt" 2>&1; local rc=$?; e=$(date +%s.%N)
  echo "$name: exit $rc, $(awk "BEGIN {printf \"%.2f\", $e - $s}") s" | tee -a "$out/summary.txt"
}
run install "$bin" --yes --manifest "$manifest" --cuda-root "$root" "$archive"
run reinstall "$bin" --yes --manifest "$manifest" --cuda-root "$root" "$archive"
run doctor "$bin" doctor --cuda-root "$root"
run status "$bin" status --cuda-root "$root"
run rollback "$bin" --rollback --yes --cuda-root "$root"
after=$(cd "$root" && find . -path ./.cudnn-install -prune -o -print | sort | xargs -d '\n' sha256sum 2>/dev/null | sha256sum)
if [ "$before" = "$after" ]; then verdict="tree identical to before"; else verdict="TREE DIFFERS"; fi
echo "rollback: $verdict" | tee -a "$out/summary.txt"

# The same cuDNN as a Windows-layout zip (the Linux bytes under Windows names) into a Windows-layout
# tree, against unzip + cp -r: the zip's entries are inflated on one thread per core (at most 4).
echo "cores: $(nproc)" | tee -a "$out/summary.txt"
zip_archive=$(CUDNN_HOME=$cudnn_home CUDA_MAJOR=13 bash scripts/make-test-archive.sh --full --windows "$work/zip" | grep '\.zip$' | head -1)
zip_manifest=$(dirname "$zip_archive")/redistrib_local.json
wroot=$work/cuda-13.0-windows
windows_tree() { rm -rf "$wroot" "$work/unzipped"; mkdir -p "$wroot/include" "$wroot/lib/x64" "$wroot/bin/x64" "$work/unzipped";
                 echo "#define CUDA_VERSION 13000" > "$wroot/include/cuda.h"; echo MZ > "$wroot/bin/x64/cudart64_13.dll"; sync; }
unpack() {  # unzip, or Python's zipfile (the same zlib, one thread) where unzip is not installed
  if command -v unzip >/dev/null; then unzip -q "$zip_archive" -d "$work/unzipped"; else python3 -m zipfile -e "$zip_archive" "$work/unzipped"; fi; }
by_hand() { unpack && cp -r "$work/unzipped"/*/include/. "$wroot/include/" &&
            cp -r "$work/unzipped"/*/bin/x64/. "$wroot/bin/x64/" && cp -r "$work/unzipped"/*/lib/x64/. "$wroot/lib/x64/"; }
zip_tool() { "$bin" --yes --no-verify --loader-config=none --manifest "$zip_manifest" --cuda-root "$wroot" "$@"; }
command -v unzip >/dev/null || echo "zip-by-hand: no unzip here, python3 -m zipfile -e instead" | tee -a "$out/summary.txt"
windows_tree; run zip-by-hand by_hand
windows_tree; run zip-install zip_tool "$zip_archive"
run zip-reinstall zip_tool "$zip_archive"
run zip-rollback "$bin" --rollback --yes --cuda-root "$wroot"
