#!/usr/bin/env bash
# End to end with real libraries: this machine's cuDNN 9.19 (every sub-library, packed by
# scripts/make-test-mirror.py --real-only as build 9.19.0.99, ~350 MB) served by scripts/mirror-server.py
# on 127.0.0.1; `cudnn-install 9.19 --yes --mirror URL` into a sandbox CUDA 13.0 toolkit downloads it,
# checks it against the mirror's manifest, installs it and verifies it (the real libcudnn loaded in a
# child); `--rollback --yes` leaves the tree as before. Exit 77 (skipped) without a cuDNN 9.19 here.
# With wine, CLI is the Windows build and the mirror serves a Windows zip of build 9.19.0.99 whose
# DLLs are STAND_IN (tests/windows/fake_cudnn.cpp as 9.19.0.99: FileVersion and cudnnGetVersion),
# so that the same steps download, install and verify (the DLL loaded in the verify's child) under
# Wine; its paths are Wine's Z:\..., its cache CUDNN_INSTALL_CACHE; installs pass --no-path.
# Usage: fetch_real_e2e.sh CLI [wine STAND_IN]
set -uo pipefail
cli=$1 runner=${2:-} stand_in=${3:-}
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/support/fetch-e2e.sh"
if [ -n "$runner" ]; then
  python3 "$here/scripts/make-test-mirror.py" "$work/mirror" --windows-stand-in "$stand_in" || exit 1
else
  python3 "$here/scripts/make-test-mirror.py" "$work/mirror" --real-only; rc=$?
  [ "$rc" = 77 ] && { echo "SKIP: no real cuDNN 9.19 on this machine"; exit 77; }
  [ "$rc" = 0 ] || exit 1
fi
# shellcheck disable=SC2119 # its options are optional: none here
start_mirror_server

snapshot() {  # the toolkit and the loader's directory, not the tool's state: names, types, modes, links, bytes
  (cd "$work" && find cuda-13.0 etc -name .cudnn-install -prune -o -printf '%p %y %m %l\n' | sort &&
    find cuda-13.0 etc -name .cudnn-install -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
r19=cudnn-$plat-9.19.0.99_cuda13-archive.$ext

# "9.19" is what this mirror's newest 9.19 manifest (redistrib_9.19.0.json) lists: its 9.19.0.99, not the
# table's 9.19.1.2 (NVIDIA's bytes, which the mirror lacks) nor 9.19.0.56. 9.19.1, which no manifest
# here answers, is the table's 9.19.1.2: a 404 from this mirror, and nothing installed.
snapshot > "$work/before"
run 9.19.1 --yes "${install_args[@]}" --mirror "$mirror"
check "9.19.1: the table's 9.19.1.2" says "→ cudnn-$plat-9.19.1.2_cuda13-archive.$ext"
check "9.19.1: not on this mirror, nothing installed" rc 4
check "9.19.1: the tree untouched" diff "$work/before" <(snapshot)
run 9.19 --yes "${install_args[@]}" --mirror "$mirror"
check "install 9.19 (${runner:-real} cuDNN)" rc 0
check "9.19 is the mirror's build" says "CUDA 13.0 toolkit → $r19"
check "its sha256 checked against the mirror's manifest" says "matches manifest redistrib_9.19.0.json"
check "the library loaded in the verify's child" says "cudnnGetVersion() = 91900"
check "the verify passed" says "verified: the installed cuDNN is complete and consistent."
for lib in "" _adv _cnn _engines_precompiled _engines_runtime_compiled _graph _heuristic _ops; do
  if [ -n "$runner" ]; then
    check "cudnn${lib}64_9.dll in place" cmp "$tk/bin/x64/cudnn${lib}64_9.dll" "$stand_in"
  else
    check "libcudnn$lib in place" test "$(readlink -f "$tk/lib/libcudnn$lib.so")" = "$tk/lib/libcudnn$lib.so.9.19.0"
  fi
done
check "the header in place" grep -q "CUDNN_MINOR 19" "$tk/include/cudnn_version.h"
check "the archive kept in the cache" cmp "$cache/$r19" "$work/mirror/cudnn/$plat/$r19"
run --rollback --yes
check "rollback" rc 0
snapshot > "$work/after"
check "the rollback leaves the tree as before" diff "$work/before" "$work/after"

finish
