#!/usr/bin/env bash
# Issue 18, class 9, end to end: the real binary installing onto a tmpfs of 4 MiB. A small archive
# goes in (the old 256 MiB reserve refused every tar.xz on such a disk); one that unpacks to 8 MiB
# is refused before anything is written, as a tar.xz (the spool's check) and as a zip (the staging
# check), with the tree unchanged. Needs root to mount the tmpfs: skipped (77) where it cannot.
# Usage: space_e2e.sh CLI CORPUS_DIR
set -uo pipefail
cli=$1 corpus=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
work=$(mktemp -d)
mnt=$work/mnt
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt"
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$mnt" "$work/etc/ld.so.conf.d"
mount -t tmpfs -o size=4m,mode=0755 tmpfs "$mnt" 2>/dev/null || { echo "SKIP: cannot mount a tmpfs here"; exit 77; }
export CUDNN_INSTALL_ETC=$work/etc CUDNN_INSTALL_LDCONFIG=true
failures=0 passes=0
check() {  # check NAME COMMAND...: counts and reports
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $name"; fi
}
linux_toolkit() {
  rm -rf "$mnt/cuda" && mkdir -p "$mnt/cuda/include" "$mnt/cuda/lib" "$mnt/cuda/bin"
  echo "#define CUDA_VERSION 13000" > "$mnt/cuda/include/cuda.h"
  ln -s lib "$mnt/cuda/lib64"
}
windows_toolkit() {
  rm -rf "$mnt/cuda" && mkdir -p "$mnt/cuda/include" "$mnt/cuda/lib/x64" "$mnt/cuda/bin/x64"
  echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.0"}}' > "$mnt/cuda/version.json"
  echo "MZ cudart" > "$mnt/cuda/bin/x64/cudart64_13.dll"
}
install() {  # install ARCHIVE: the real binary, its output in $work/out, its exit status in $work/rc
  timeout 120 "$cli" --yes --no-verify --cuda-root "$mnt/cuda" --manifest "$(dirname "$1")/redistrib_local.json" \
    "$1" > "$work/out" 2>&1
  echo $? > "$work/rc"
}
rc() { [ "$(cat "$work/rc")" = "$1" ] || { echo "exit $(cat "$work/rc"), expected $1:"; cat "$work/out"; return 1; }; }
says() { grep -qF -- "$1" "$work/out" || { echo "output lacks '$1':"; cat "$work/out"; return 1; }; }
tree() { (cd "$mnt/cuda" && find . -mindepth 1 -path ./.cudnn-install -prune -o -print0 | sort -z | xargs -0 ls -ld --time-style=+); }
unchanged() { diff <(cat "$work/before") <(tree) > "$work/diff" || { echo "the tree changed:"; cat "$work/diff"; return 1; }; }
no_spool() { [ ! -e "$mnt/cuda/.cudnn-install/spool" ] || { echo "the spool was left behind"; return 1; }; }

lname=cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
wname=cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip

linux_toolkit
install "$corpus/good/$lname"
check "a small tar.xz installs on a 4 MiB filesystem" rc 0

windows_toolkit
install "$corpus/good/$wname"
check "a small zip installs on a 4 MiB filesystem" rc 0

linux_toolkit
tree > "$work/before"
install "$corpus/tricky/too-big/$lname"
check "a tar.xz unpacking to 8 MiB is refused" rc 4
check "  saying there is not enough space" says "not enough space"
check "  and changing nothing" unchanged
check "  and leaving no spool" no_spool

windows_toolkit
tree > "$work/before"
install "$corpus/tricky/too-big/$wname"
check "a zip unpacking to 8 MiB is refused" rc 4
check "  saying there is not enough space" says "not enough space"
check "  before anything was written" says "Nothing was changed"
check "  and changing nothing" unchanged

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
