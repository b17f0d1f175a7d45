#!/usr/bin/env bash
# Builds bench/kernel_trace.c into OUTDIR/libkernel_trace.so and copies the libcupti it links
# beside it (the device machine's own may differ in version). Needs the CUDA toolkit (nvcc on PATH
# or /usr/local/cuda*) with its CUPTI headers; exits 77 without them.
# Usage: build-kernel-trace.sh OUTDIR
set -euo pipefail
out=${1:?usage: build-kernel-trace.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
cuda=
if nvcc=$(command -v nvcc 2> /dev/null); then cuda=$(dirname "$(dirname "$(readlink -f "$nvcc")")"); fi
for candidate in "$cuda" /usr/local/cuda /usr/local/cuda-*; do
  for inc in include extras/CUPTI/include; do
    if [ -n "$candidate" ] && [ -f "$candidate/$inc/cupti_activity.h" ]; then
      header=$candidate/$inc
      break 2
    fi
  done
done
if [ -z "${header:-}" ]; then
  echo "build-kernel-trace.sh: no CUPTI headers (cupti_activity.h) under nvcc's toolkit or /usr/local/cuda*" >&2
  exit 77
fi
# -L: /usr/local/cuda is usually a symlink, and find does not descend into a symlinked start.
lib=$(find -L "$(dirname "$header")" -maxdepth 4 -name 'libcupti.so.*' -print -quit)
[ -n "$lib" ] || { echo "build-kernel-trace.sh: no libcupti.so.* beside $header" >&2; exit 1; }
mkdir -p "$out"
# shellcheck disable=SC2016 # $ORIGIN is for the loader: the libcupti copied beside the library
gcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -fPIC -shared -isystem "$header" "$here/kernel_trace.c" \
  -L "$(dirname "$lib")" -l:"$(basename "$lib")" -Wl,-rpath,'$ORIGIN' -lpthread -o "$out/libkernel_trace.so"
cp -L "$lib" "$out/"
echo "$out/libkernel_trace.so"
