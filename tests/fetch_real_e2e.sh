#!/usr/bin/env bash
# End to end with real libraries: this machine's cuDNN 9.19 (every sub-library, packed by
# scripts/make-test-mirror.py --real-only as build 9.19.0.99, ~350 MB) served by scripts/mirror-server.py
# on 127.0.0.1; `cudnn-install 9.19 --yes --mirror URL` into a sandbox CUDA 13.0 toolkit downloads it,
# checks it against the mirror's manifest, installs it and verifies it (the real libcudnn loaded in a
# child); `--rollback --yes` leaves the tree as before. Exit 77 (skipped) without a cuDNN 9.19 here.
# Usage: fetch_real_e2e.sh CLI
set -uo pipefail
cli=$1
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0 passes=0
check() {  # check NAME COMMAND...: counts and reports
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $name"; fi
}

python3 "$here/scripts/make-test-mirror.py" "$work/mirror" --real-only; rc=$?
[ "$rc" = 77 ] && { echo "SKIP: no real cuDNN 9.19 on this machine"; exit 77; }
[ "$rc" = 0 ] || exit 1
python3 "$here/scripts/mirror-server.py" "$work/mirror" --port-file "$work/port" --log "$work/server.log" \
  --lifetime 600 &
server_pid=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done  # a loaded machine starts python slowly
mirror="http://127.0.0.1:$(cat "$work/port")/"

tk=$work/cuda-13.0
mkdir -p "$tk/include" "$tk/lib" "$tk/bin" "$work/etc/ld.so.conf.d"
echo "#define CUDA_VERSION 13000" > "$tk/include/cuda.h"
echo cudart > "$tk/lib/libcudart.so.13"
ln -s lib "$tk/lib64"
export XDG_CACHE_HOME=$work/cache CUDNN_INSTALL_ETC=$work/etc CUDNN_INSTALL_LDCONFIG=true
unset CUDNN_INSTALL_MIRROR http_proxy https_proxy HTTP_PROXY HTTPS_PROXY
run() { "$cli" "$@" --cuda-root "$tk" > "$work/out" 2>&1; echo $? > "$work/rc"; }
rc() { [ "$(cat "$work/rc")" = "$1" ] || { echo "exit $(cat "$work/rc"), expected $1:"; cat "$work/out"; return 1; }; }
says() { grep -qF -- "$1" "$work/out" || { echo "output lacks '$1':"; cat "$work/out"; return 1; }; }
snapshot() {  # the toolkit and the loader's directory, not the tool's state: names, types, modes, links, bytes
  (cd "$work" && find cuda-13.0 etc -name .cudnn-install -prune -o -printf '%p %y %m %l\n' | sort &&
    find cuda-13.0 etc -name .cudnn-install -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
r19=cudnn-linux-x86_64-9.19.0.99_cuda13-archive.tar.xz

# "9.19" is what this mirror's newest 9.19 manifest (redistrib_9.19.0.json) lists: its 9.19.0.99, not the
# table's 9.19.1.2 (NVIDIA's bytes, which the mirror lacks) nor 9.19.0.56. 9.19.1, which no manifest
# here answers, is the table's 9.19.1.2: a 404 from this mirror, and nothing installed.
snapshot > "$work/before"
run 9.19.1 --yes --mirror "$mirror"
check "9.19.1: the table's 9.19.1.2" says "→ cudnn-linux-x86_64-9.19.1.2_cuda13-archive.tar.xz"
check "9.19.1: not on this mirror, nothing installed" rc 4
check "9.19.1: the tree untouched" diff "$work/before" <(snapshot)
run 9.19 --yes --mirror "$mirror"
check "install 9.19 (real cuDNN)" rc 0
check "9.19 is the mirror's build" says "CUDA 13.0 toolkit → $r19"
check "its sha256 checked against the mirror's manifest" says "matches manifest redistrib_9.19.0.json"
check "the real library loaded in the verify's child" says "cudnnGetVersion() = 91900"
check "the verify passed" says "verified: the installed cuDNN is complete and consistent."
for lib in libcudnn libcudnn_adv libcudnn_cnn libcudnn_engines_precompiled libcudnn_engines_runtime_compiled \
  libcudnn_graph libcudnn_heuristic libcudnn_ops; do
  check "$lib in place" test "$(readlink -f "$tk/lib/$lib.so")" = "$tk/lib/$lib.so.9.19.0"
done
check "the header in place" grep -q "CUDNN_MINOR 19" "$tk/include/cudnn_version.h"
check "the archive kept in the cache" cmp "$XDG_CACHE_HOME/cudnn-install/$r19" "$work/mirror/cudnn/linux-x86_64/$r19"
run --rollback --yes
check "rollback" rc 0
snapshot > "$work/after"
check "the rollback leaves the tree as before" diff "$work/before" "$work/after"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
