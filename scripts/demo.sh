#!/usr/bin/env bash
# The main job on a sandbox: packs the real cuDNN of this machine into a real-layout archive,
# makes a sandbox CUDA 13.0 tree that already has an older cuDNN, and runs cudnn-install on it.
# Nothing outside the sandbox (a temporary directory) is touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/release/app/cudnn-install
cmake --preset release >/dev/null && cmake --build --preset release >/dev/null
export PATH="$PWD/build/release/app:$PATH"  # so that "undo with:" names it cudnn-install, as an installed copy
sandbox=$(mktemp -d /tmp/cudnn-install-demo.XXXXXX)
[ "${KEEP_SANDBOX:-0}" = 1 ] || trap 'rm -rf "$sandbox"' EXIT
echo "sandbox: $sandbox (set KEEP_SANDBOX=1 to keep it)"

# The full archive (every sub-library, ~500 MB unpacked) takes about a minute to pack: keep it.
cache=build/demo-cache
[ -f "$cache/redistrib_local.json" ] || rm -rf "$cache"
archive=""
for a in "$cache"/cudnn-linux-x86_64-*_cuda*-archive.tar.xz; do [ -e "$a" ] && { archive=$a; break; }; done
[ -n "$archive" ] || archive=$(scripts/make-test-archive.sh --full "$cache" | head -1 || true)
# Repacked here: NVIDIA's name with other bytes (hence the manifest); the loader configuration is
# only printed, never written to this machine's /etc.
extra=(--loader-config=print --manifest "$(dirname "$archive")/redistrib_local.json")
if [ -z "$archive" ]; then
  echo "no real cuDNN on this machine: using the synthetic corpus archive (its libraries cannot be loaded: --no-verify)"
  python3 scripts/make-test-archives.py "$sandbox/corpus"
  archive=$sandbox/corpus/good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
  extra=(--loader-config=print --no-verify --manifest "$sandbox/corpus/good/redistrib_local.json")
fi

root=$sandbox/cuda-13.0
mkdir -p "$root/include" "$root/lib" "$root/bin"
ln -s lib "$root/lib64"
echo "#define CUDA_VERSION 13000" > "$root/include/cuda.h"
printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' > "$root/include/cudnn_version.h"
echo "old cudnn 9.1" > "$root/lib/libcudnn.so.9.1.0"
ln -s libcudnn.so.9.1.0 "$root/lib/libcudnn.so.9"

run() { echo; echo "\$ cudnn-install $*"; "$bin" "$@"; }
snapshot() { (cd "$root" && find . -path ./.cudnn-install -prune -o -print0 | sort -z | xargs -0 ls -ld --time-style=+ | sed 's/ [0-9]* root root//'; find . -path ./.cudnn-install -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(snapshot)
run --dry-run "${extra[@]}" --cuda-root "$root" "$archive"
run --yes "${extra[@]}" --cuda-root "$root" "$archive"
run status --cuda-root "$root"
run --rollback --yes --cuda-root "$root"
if [ "$before" = "$(snapshot)" ]; then
  echo; echo "demo: after --rollback the sandbox tree is byte-for-byte what it was before the install."
else
  echo; echo "demo: ERROR: the tree differs after --rollback" >&2; exit 1
fi
