#!/usr/bin/env bash
# Packs the cuDNN installed on this machine (found through nvcc on PATH or /usr/local/cuda*) into
# real-layout archives, exactly as NVIDIA ships them:
#   cudnn-linux-x86_64-<ver>_cuda<N>-archive.tar.xz   include/, lib/ with .so -> .so.N -> .so.N.M.P chains, LICENSE
#   cudnn-windows-x86_64-<ver>_cuda<N>-archive.zip    (--windows) include/, bin/x64/*.dll, lib/x64/*.lib, LICENSE
# The Windows zip reuses the Linux bytes under Windows names: a realistic size and layout, not runnable DLLs.
#
# Usage: make-test-archive.sh [--small|--full] [--windows] OUTDIR
#   --small  headers, libcudnn, libcudnn_graph, libcudnn_cnn (~9 MB; the default)
#   --full   every sub-library (~500 MB uncompressed)
# Exit 77 (skip) when no cuDNN is installed here, unless CUDNN_FAKE_LIBRARY names a stand-in
# (tests/support/fake_cudnn_posix.cpp, built by the tests): then it is packed as cuDNN 9.19.0 for
# CUDA 13, with generated headers, so that the tests of "the real archive" run on any machine.
# CUDNN_FAKE_ONLY=1 packs the stand-in even where a real cuDNN is installed (to try that path).
# CUDNN_HOME=DIR takes cuDNN from DIR/include and DIR/lib (e.g. a pip nvidia-cudnn package);
# CUDA_MAJOR=N sets the CUDA major of the archive name when DIR has no cuda.h.
set -euo pipefail

size=small windows=0 out=""
for arg in "$@"; do
  case "$arg" in
    --small) size=small ;;
    --full) size=full ;;
    --windows) windows=1 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) out="$arg" ;;
  esac
done
[ -n "$out" ] || { echo "usage: $0 [--small|--full] [--windows] OUTDIR" >&2; exit 1; }
out=$(realpath -m "$out")  # the zip is written from inside the staging directory
here=$(cd "$(dirname "$0")/.." && pwd)
# The libraries of a cuDNN 9 archive (lib/src/verify.cpp checks the same set after an install).
mapfile -t cudnn9_libraries < "$here/data/cudnn9-libraries.txt"

find_cuda() {
  local nvcc candidate
  if [ -n "${CUDNN_HOME:-}" ]; then echo "$CUDNN_HOME"; return; fi
  if nvcc=$(command -v nvcc 2>/dev/null); then
    candidate=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
    [ -f "$candidate/include/cudnn_version.h" ] && { echo "$candidate"; return; }
  fi
  for candidate in /usr/local/cuda /usr/local/cuda-*; do
    [ -f "$candidate/include/cudnn_version.h" ] && { echo "$candidate"; return; }
  done
  return 1
}

# A cuDNN home made of the stand-in library: the headers that name its version, the libraries copies of it.
fake_home() {
  local home=$1 lib
  mkdir -p "$home/include" "$home/lib"
  printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n' > "$home/include/cudnn_version.h"
  printf '/* stand-in for cudnn.h (cudnn-install tests) */\n#include "cudnn_version.h"\n' > "$home/include/cudnn.h"
  printf '#define CUDA_VERSION 13000\n' > "$home/include/cuda.h"
  for lib in "${cudnn9_libraries[@]}"; do
    # 3 MiB of noise after the ELF image (the loader reads only what its headers map): sizes like
    # the real libraries', so that decoding takes long enough to report progress
    { cat "$CUDNN_FAKE_LIBRARY"; head -c 3145728 /dev/urandom; } > "$home/lib/$lib.so.9"
  done
  echo "$home"
}

fake_stage=$(mktemp -d)
trap 'rm -rf "$fake_stage"' EXIT
if [ "${CUDNN_FAKE_ONLY:-0}" = 1 ] || ! cuda=$(find_cuda); then
  if [ -z "${CUDNN_FAKE_LIBRARY:-}" ]; then
    echo "no cuDNN found (nvcc on PATH or /usr/local/cuda*): skipping" >&2
    exit 77
  fi
  cuda=$(fake_home "$fake_stage/cudnn")
  echo "no cuDNN used from this machine: packing the stand-in $CUDNN_FAKE_LIBRARY as cuDNN 9.19.0" >&2
fi
libdir=$cuda/lib64; [ -e "$libdir/libcudnn.so.9" ] || libdir=$cuda/lib
macro() { sed -n "s/^#define $1 \([0-9]*\).*/\1/p" "$cuda/include/cudnn_version.h" | head -1; }
major=$(macro CUDNN_MAJOR) minor=$(macro CUDNN_MINOR) patch=$(macro CUDNN_PATCHLEVEL)
if [ -z "${CUDA_MAJOR:-}" ]; then
  cuda_major=$(sed -n 's/^#define CUDA_VERSION \([0-9]*\).*/\1/p' "$cuda/include/cuda.h" | head -1)
  cuda_major=$((cuda_major / 1000))
else
  cuda_major=$CUDA_MAJOR
fi
ver3=$major.$minor.$patch
# The build number (4th part) is not in any header: take NVIDIA's from the known-archives table.
# CUDNN_BUILD=N names it otherwise (the download tests serve it as a release the table lacks).
build=${CUDNN_BUILD:-$(awk -F'\t' -v p="cudnn-linux-x86_64-$ver3." -v c="_cuda$cuda_major-archive" \
  'index($1, p) == 1 && index($1, c) { split($2, v, "."); print v[4]; exit }' "$here/data/known-archives.tsv")}
ver=$ver3.${build:-0}

libs=(libcudnn libcudnn_graph libcudnn_cnn)
[ "$size" = full ] && libs=("${cudnn9_libraries[@]}")

mkdir -p "$out"
stage=$(mktemp -d); trap 'rm -rf "$stage" "$fake_stage"' EXIT
top=cudnn-linux-x86_64-${ver}_cuda${cuda_major}-archive
mkdir -p "$stage/$top/include" "$stage/$top/lib"
cp "$cuda"/include/cudnn*.h "$stage/$top/include/"
for lib in "${libs[@]}"; do
  cp "$libdir/$lib.so.$major" "$stage/$top/lib/$lib.so.$ver3"
  ln -s "$lib.so.$ver3" "$stage/$top/lib/$lib.so.$major"
  ln -s "$lib.so.$major" "$stage/$top/lib/$lib.so"
done
echo "cuDNN $ver packed from $cuda by cudnn-install's test scripts; see NVIDIA's license." > "$stage/$top/LICENSE"
chmod -R u+rwX,go+rX "$stage/$top"
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name -cf - "$top" | xz -T"$(nproc)" -0 > "$out/$top.tar.xz.part"
mv "$out/$top.tar.xz.part" "$out/$top.tar.xz"
echo "$out/$top.tar.xz"

write_manifest() {  # our repacked archives have NVIDIA's names but other bytes: --manifest this file
  python3 - "$out" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
entries = {}
for n in sorted(os.listdir(d)):
    if n.endswith((".zip", ".tar.xz")):
        h = hashlib.sha256()
        with open(os.path.join(d, n), "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        entries[n] = {"relative_path": "local/" + n, "sha256": h.hexdigest(), "size": str(os.path.getsize(os.path.join(d, n)))}
json.dump({"release_label": "repacked locally by make-test-archive.sh", "cudnn": entries},
          open(os.path.join(d, "redistrib_local.json"), "w"), indent=1)
PY
}

if [ "$windows" = 1 ]; then
  wtop=cudnn-windows-x86_64-${ver}_cuda${cuda_major}-archive
  mkdir -p "$stage/$wtop/bin/x64" "$stage/$wtop/lib/x64"
  cp -r "$stage/$top/include" "$stage/$top/LICENSE" "$stage/$wtop/"
  rm -f "$stage/$wtop"/include/*_v9.h
  for lib in "${libs[@]}"; do
    win=${lib#lib}; sub=${win#cudnn}
    cp "$stage/$top/lib/$lib.so.$ver3" "$stage/$wtop/bin/x64/cudnn${sub}64_$major.dll"
    head -c 65536 "$stage/$top/lib/$lib.so.$ver3" > "$stage/$wtop/lib/x64/$win.lib"
  done
  rm -f "$out/$wtop.zip"
  (cd "$stage" && python3 -c 'import shutil,sys; shutil.make_archive(sys.argv[1], "zip", ".", sys.argv[2])' \
    "$out/$wtop" "$wtop")
  echo "$out/$wtop.zip"
fi
write_manifest
