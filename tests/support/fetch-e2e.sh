# shellcheck shell=bash
# Sourced by tests/fetch_e2e.sh and tests/fetch_real_e2e.sh, with `cli` and `runner` ("" or wine) set:
# a work directory removed at exit, check/run/rc/says, the local mirror server, and a sandbox CUDA 13.0
# toolkit. With wine, CLI is the Windows build: its host platform is windows-x86_64 (zip archives, a
# Windows toolkit layout), the paths it is given are Windows paths (Z:\...), its cache is
# CUDNN_INSTALL_CACHE, and installs pass --no-path (the user PATH of the shared Wine prefix is left alone).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
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
finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" = 0 ]
}

start_mirror_server() {  # start_mirror_server [mirror-server.py options]: serves $work/mirror, sets $mirror
  python3 "$here/scripts/mirror-server.py" "$work/mirror" --port-file "$work/port" --log "$work/server.log" \
    --lifetime 600 "$@" &
  server_pid=$!
  for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done  # a loaded machine starts python slowly
  # shellcheck disable=SC2034 # used by the sourcing scripts
  mirror="http://127.0.0.1:$(cat "$work/port")/"
}

tk=$work/cuda-13.0
mkdir -p "$tk/include" "$work/etc/ld.so.conf.d"
echo "#define CUDA_VERSION 13000" > "$tk/include/cuda.h"
unset CUDNN_INSTALL_MIRROR CUDNN_INSTALL_CACHE http_proxy https_proxy HTTP_PROXY HTTPS_PROXY no_proxy NO_PROXY
cache=$work/cache/cudnn-install
if [ -n "$runner" ]; then
  plat=windows-x86_64 ext=zip
  host() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }  # the host's / is Wine's drive Z:
  mkdir -p "$tk/bin/x64" "$tk/lib/x64"
  echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.0"}}' > "$tk/version.json"
  echo "MZ cudart" > "$tk/bin/x64/cudart64_13.dll"
  CUDNN_INSTALL_CACHE=$(host "$cache")
  export CUDNN_INSTALL_CACHE WINEDEBUG=${WINEDEBUG:--all}
  install_args=(--no-path)
else
  # shellcheck disable=SC2034 # used by the sourcing scripts
  plat=linux-x86_64 ext=tar.xz
  host() { printf '%s' "$1"; }
  mkdir -p "$tk/lib" "$tk/bin"
  echo cudart > "$tk/lib/libcudart.so.13"
  ln -s lib "$tk/lib64"
  export XDG_CACHE_HOME=$work/cache CUDNN_INSTALL_ETC=$work/etc CUDNN_INSTALL_LDCONFIG=true
  # shellcheck disable=SC2034 # used by the sourcing scripts
  install_args=()
fi
# shellcheck disable=SC2154 # cli is set by the sourcing script
run() { $runner "$cli" "$@" --cuda-root "$(host "$tk")" > "$work/out" 2>&1; echo $? > "$work/rc"; }
rc() { [ "$(cat "$work/rc")" = "$1" ] || { echo "exit $(cat "$work/rc"), expected $1:"; cat "$work/out"; return 1; }; }
says() { grep -qF -- "$1" "$work/out" || { echo "output lacks '$1':"; cat "$work/out"; return 1; }; }
