# shellcheck shell=bash
# Sourced by the Wine end-to-end scripts (signal_e2e_wine.sh, outside_e2e_wine.sh), with `work`
# set to the test's scratch directory: Wine's quiet defaults, host paths as Wine sees them, and the
# checks that count passes and failures and say what went wrong.
export WINEDEBUG=${WINEDEBUG:--all}
failures=0 passes=0
host() { local p=${1//\//\\}; printf 'Z:%s' "$p"; }  # the host's / is Wine's drive Z:
check() {  # check NAME COMMAND...: counts and reports
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $name"; fi
}
# The exit status and output of the last command, kept in $work/rc and $work/out.
# shellcheck disable=SC2154 # work is set by the sourcing script
rc() { [ "$(cat "$work/rc")" = "$1" ] || { echo "exit $(cat "$work/rc"), expected $1:"; cat "$work/out"; return 1; }; }
says() { grep -qF -- "$1" "$work/out" || { echo "output lacks '$1':"; cat "$work/out"; return 1; }; }
# run_exe ARGS...: the Windows build ($cli) under Wine, stdin from /dev/null (no terminal).
# shellcheck disable=SC2154 # cli is set by the sourcing script
run_exe() {
  wine "$cli" "$@" </dev/null > "$work/out" 2>&1
  echo $? > "$work/rc"
}
# A Windows CUDA 13.0 toolkit at $1 with an older cuDNN 9.1 in bin/x64 (which may be a link already).
windows_toolkit() {
  mkdir -p "$1/include" "$1/lib/x64" "$1/bin/x64"
  echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.0"}}' > "$1/version.json"
  echo "MZ cudart" > "$1/bin/x64/cudart64_13.dll"
  echo "MZ old cudnn 9.1" > "$1/bin/x64/cudnn64_9.dll"
}
# Every entry under a directory with its type, size and sha256 (the tool's log aside).
tree_manifest() {
  (cd "$1" && find . -mindepth 1 ! -name cudnn-install.log \
      ! \( -type d -empty \( -path ./.cudnn-install/backup -o -path ./.cudnn-install/history \) \) -print0 |
     sort -z | xargs -0 -r stat -c "%n %F %s"
   cd "$1" && find . -type f ! -name cudnn-install.log -print0 | sort -z | xargs -0 -r sha256sum)
}
finish() {
  echo "$passes passed, $failures failed"
  [ "$failures" = 0 ]
}
