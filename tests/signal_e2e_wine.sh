#!/usr/bin/env bash
# Issue 18, class 9, on Windows: the console control handler (interrupt_win32.cpp) of the real
# Windows build, run under Wine. Wine turns a SIGINT sent to a Windows process into the
# CTRL_C_EVENT its console control handlers receive, as Ctrl-C typed into its console would. The
# install is paused at a known point (CUDNN_INSTALL_TEST_PAUSE_AT: staging, the swap, just before
# the commit record, after the user PATH was changed in the registry) and sent SIGINT once it says
# so: exit 130, a message saying so, the toolkit, its state directory and the user PATH value (its
# type and every byte) as before, no temporary left. Then Ctrl-C during --rollback: the rollback
# finishes first and exits 130. (Ctrl-Break, closing the console, logoff and shutdown cannot be
# sent to a process under Wine from here: they are not tested.)
# Usage: signal_e2e_wine.sh CLI_EXE CORPUS_DIR SOURCE_DIR
set -uo pipefail
cli=$1 corpus=$2 source_dir=$3
work=$(mktemp -d)
pid=
reg_py=$source_dir/tests/support/reg_file.py
# shellcheck source-path=SCRIPTDIR source=support/wine-e2e.sh
. "$source_dir/tests/support/wine-e2e.sh"
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  [ -f "$work/path-saved.reg" ] && wine reg import "$(host "$work/path-saved.reg")" </dev/null >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
root=$work/cuda
zip=$corpus/good/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip

# The user's PATH as the test finds it is put back at the end; the test sets one of its own.
wine reg export 'HKCU\Environment' "$(host "$work/path-saved.reg")" /y </dev/null >/dev/null 2>&1 ||
  rm -f "$work/path-saved.reg"
wine reg add 'HKCU\Environment' /v Path /t REG_EXPAND_SZ /d '%SystemRoot%\system32;C:\Tools\bin' /f \
  </dev/null >/dev/null 2>&1
user_path() {  # "TYPE HEX" of HKCU\Environment\Path
  wine reg export 'HKCU\Environment' "$(host "$work/now.reg")" /y </dev/null >/dev/null 2>&1
  python3 "$reg_py" read "$work/now.reg" Path
}

# A Windows CUDA 13.0 toolkit with an older cuDNN in it, and the state directory an earlier run made.
toolkit() {
  rm -rf "$root"
  windows_toolkit "$root"
  wine "$cli" --rollback --yes --cuda-root "$(host "$root")" </dev/null > /dev/null 2>&1  # makes the state directory
}
manifest() { tree_manifest "$root"; }  # the state directory included
# shellcheck source-path=SCRIPTDIR source=support/signal-checks.sh
. "$source_dir/tests/support/signal-checks.sh"
path_is() {
  [ -n "$1" ] || { echo "the user PATH before was not read"; return 1; }
  [ "$(user_path)" = "$1" ] || { echo "the user PATH is now $(user_path), not $1"; return 1; }
}

# signal_paused POINT ARGS...: the exe run with ARGS, paused at POINT, then sent SIGINT (Ctrl-C).
signal_paused() {
  local point=$1; shift
  : > "$work/out"
  CUDNN_INSTALL_TEST_PAUSE_AT=$point wine "$cli" "$@" </dev/null > "$work/out" 2>&1 &
  pid=$!
  # Waits for the pause (a poll, not a timing: the exe waits as long as it takes; ctest's TIMEOUT bounds it).
  while ! grep -q "test hook: paused" "$work/out" && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  user_path > "$work/path-at-pause"  # what the registry holds while the exe waits
  kill -s INT "$pid" 2>/dev/null
  local deadline=$((SECONDS + 120))
  while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.05; done
  kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; echo "test: no exit within 120 s of SIGINT: killed" >> "$work/out"; }
  wait "$pid"
  echo $? > "$work/rc"
  pid=
}
install_args=(--yes --no-verify --cuda-root "$(host "$root")" --manifest "$(host "$corpus/good/redistrib_local.json")")

case_paused() {  # case_paused POINT [--no-path]
  local point=$1 name="Ctrl-C (SIGINT) while paused $1${2:+ ($2)}"
  toolkit
  manifest > "$work/before"
  path_before=$(user_path)
  signal_paused "$point" "${install_args[@]}" ${2:+"$2"} "$(host "$zip")"
  check "$name: paused there" says "test hook: paused"
  check "$name: exit 130" rc 130
  check "$name: says so" says "stopped by an interrupt (SIGINT, Ctrl-C)"
  check "$name: says the toolkit is as before" says "as it was before"
  check "$name: toolkit and state as before" unchanged
  check "$name: no temporary or journal" no_debris
  check "$name: the user PATH as before, type and bytes" path_is "$path_before"
}

case_paused stage --no-path
case_paused swap --no-path
case_paused commit  # the user PATH was changed in the registry just before
check "paused at commit: the user PATH had been changed" test "$(cat "$work/path-at-pause")" != "$path_before"

# The same install goes through, and Ctrl-C during its --rollback lets the rollback finish.
toolkit
manifest > "$work/before"
path_before=$(user_path)
run_exe "${install_args[@]}" "$(host "$zip")"
check "an install after the interrupted ones: exit 0" rc 0
check "it changed the user PATH" test -n "$(user_path)" -a "$(user_path)" != "$path_before"
signal_paused undo --rollback --yes --cuda-root "$(host "$root")"
check "Ctrl-C during --rollback: paused there" says "test hook: paused while a transaction was undone"
check "Ctrl-C during --rollback: exit 130" rc 130
check "Ctrl-C during --rollback: says the rollback was finished first" says "was finished first"
check "Ctrl-C during --rollback: the toolkit as before the install" tree_unchanged
check "Ctrl-C during --rollback: the user PATH as before the install" path_is "$path_before"
check "Ctrl-C during --rollback: no temporary or journal" no_debris

finish
