#!/usr/bin/env bash
# The install path end to end on a GPU machine (the lent H200), in one call: pack the machine's own
# cuDNN into a real-layout tar.xz, install it into a sandbox CUDA 13.0 tree (spool, verify with the
# GPU, the short post-install benchmark), install it again (remembered: nothing read or written),
# doctor, status, then --rollback and a check that the tree is as before. Expects .devlibs/ as
# bench/README.md describes. Results go to $OUT (default bench/results).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results}/install-on-device
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$PWD/.devlibs/cudnn-install
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
[ "$before" = "$after" ] && echo "rollback: tree identical to before" | tee -a "$out/summary.txt" \
                        || echo "rollback: TREE DIFFERS" | tee -a "$out/summary.txt"
