#!/usr/bin/env bash
# One whole measurement on a GPU machine (the lent H200): pack the machine's own cuDNN into a
# real-layout archive, install it into a sandbox CUDA tree (verify + the short post-install bench
# run), then the full `cudnn-install bench` and PyTorch's cuDNN convolution on the same layers.
# Expects a stripped cudnn-install and its shared libraries in .devlibs/ (see bench/README.md).
# Results go to $OUT (default bench/results).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-bench/results}/run
mkdir -p "$out"
export LD_LIBRARY_PATH=$PWD/.devlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bin=$PWD/.devlibs/cudnn-install
nvidia-smi -L | tee "$out/gpu.txt"

cudnn_home=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)
echo "cuDNN taken from: $cudnn_home"
work=$(mktemp -d)
archive=$(CUDNN_HOME=$cudnn_home CUDA_MAJOR=13 bash scripts/make-test-archive.sh --full "$work/dl" | head -1)
echo "archive: $archive"

root=$work/cuda-13.0
mkdir -p "$root/include" "$root/lib" "$root/bin" && ln -s lib "$root/lib64"
echo "#define CUDA_VERSION 13000" > "$root/include/cuda.h"
"$bin" --yes --cuda-root "$root" "$archive" 2>&1 | tail -40 | tee "$out/install.txt"

"$bin" bench --list-shapes > "$work/shapes.json"
"$bin" bench --cuda-root "$root" --dtypes fp16,bf16,tf32,fp32 --layouts nhwc --json > "$out/cudnn-install-nhwc.json" 2> "$out/cudnn-install-nhwc.log"
"$bin" bench --cuda-root "$root" --dtypes fp16,bf16 --layouts nchw --json > "$out/cudnn-install-nchw.json" 2> "$out/cudnn-install-nchw.log"
python3 bench/pytorch_conv.py "$work/shapes.json" fp16,bf16,tf32,fp32 nhwc > "$out/pytorch-nhwc.json" 2> "$out/pytorch-nhwc.log"
python3 bench/pytorch_conv.py "$work/shapes.json" fp16,bf16 nchw > "$out/pytorch-nchw.json" 2> "$out/pytorch-nchw.log"
tail -n 3 "$out"/*.log
# The device tool returns at most 8 files: hand everything back as one.
tar -C "$out" -czf "$out/../results.tar.gz" . && mv "$out/../results.tar.gz" "$out/results.tar.gz"
find "$out" -type f ! -name results.tar.gz -delete
