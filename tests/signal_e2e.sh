#!/usr/bin/env bash
# Issue 18, class 9, end to end: SIGINT, SIGTERM and SIGHUP sent to the real binary during a real
# install of a generated archive, at known points: at the prompt (on a pseudo-terminal), while a
# tar.xz is read into the spool, while files are staged, during the swap, just before the commit
# record. CUDNN_INSTALL_TEST_PAUSE_AT makes the binary stop at that point and say so on stderr; the
# signal is sent once the line is there, so no timing decides what is tested. Each time: exit code
# 128 + the signal, a message saying so, and the toolkit and its state directory as before (a
# manifest of types, modes, sizes, link targets and sha256 of every file; the log aside, and the
# empty backup/ and history/ every transaction makes), no temporary and no spool left. Then a signal
# during --rollback and during uninstall (paused between the steps of an undo): the undo finishes,
# uninstall stops before the next transaction, and both exit with the signal's code.
# Usage: signal_e2e.sh CLI CORPUS_DIR SOURCE_DIR
set -uo pipefail
cli=$1 corpus=$2 source_dir=$3
work=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/etc/ld.so.conf.d"
export CUDNN_INSTALL_ETC=$work/etc CUDNN_INSTALL_LDCONFIG=true
root=$work/cuda
failures=0 passes=0
check() {  # check NAME COMMAND...: counts and reports
  local name=$1; shift
  if "$@"; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $name"; fi
}
lname=cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz
wname=cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip

# A toolkit with an older cuDNN in it (files the install backs up and replaces), and a state
# directory made by an earlier run (its lock file and log).
toolkit() {  # toolkit linux|windows
  rm -rf "$root"
  if [ "$1" = linux ]; then
    mkdir -p "$root/include" "$root/lib" "$root/bin"
    echo "#define CUDA_VERSION 13000" > "$root/include/cuda.h"
    ln -s lib "$root/lib64"
    printf '#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n' > "$root/include/cudnn_version.h"
    echo "old cudnn 9.1" > "$root/lib/libcudnn.so.9.1.0" && ln -s libcudnn.so.9.1.0 "$root/lib/libcudnn.so.9"
  else
    mkdir -p "$root/include" "$root/lib/x64" "$root/bin/x64"
    echo '{"cuda": {"name": "CUDA SDK", "version": "13.0.0"}}' > "$root/version.json"
    echo "MZ cudart" > "$root/bin/x64/cudart64_13.dll"
    echo "MZ old cudnn 9.1" > "$root/bin/x64/cudnn64_9.dll"
  fi
  "$cli" --rollback --yes --cuda-root "$root" > /dev/null 2>&1  # nothing to roll back: makes the state directory
}
manifest() {  # everything under the toolkit, the state directory included, and the sandbox /etc
  for dir in "$root" "$work/etc"; do
    (cd "$dir" && find . -mindepth 1 ! -name cudnn-install.log \
        ! \( -type d -empty \( -path ./.cudnn-install/backup -o -path ./.cudnn-install/history \) \) -print0 |
       sort -z | xargs -0 -r stat -c "$dir %n %F %a %N"
     cd "$dir" && find . -type f ! -name cudnn-install.log -print0 | sort -z | xargs -0 -r sha256sum)
  done
}
# shellcheck source-path=SCRIPTDIR source=support/signal-checks.sh
. "$source_dir/tests/support/signal-checks.sh"
rc() { [ "$(cat "$work/rc")" = "$1" ] || { echo "exit $(cat "$work/rc"), expected $1:"; cat "$work/out"; return 1; }; }
says() { grep -qF -- "$1" "$work/out" || { echo "output lacks '$1':"; cat "$work/out"; return 1; }; }
manifest_of() { echo "$(dirname "$1")/redistrib_local.json"; }  # the manifest beside ARCHIVE

# signal_paused POINT SIGNAL ARGS...: the binary run with ARGS, paused at POINT, then sent SIGNAL
# (after running $while_paused, when set: what another program does to the toolkit meanwhile).
signal_paused() {
  local point=$1 sig=$2; shift 2
  : > "$work/out"
  CUDNN_INSTALL_TEST_PAUSE_AT=$point "$cli" "$@" > "$work/out" 2>&1 &
  pid=$!
  # Waits for the pause (a poll, not a timing: the binary waits as long as it takes; ctest's TIMEOUT bounds it).
  while ! grep -q "test hook: paused" "$work/out" && kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  ${while_paused:-true}
  kill -s "$sig" "$pid" 2>/dev/null
  exits_within 120 "$pid" || echo "test: no exit within 120 s of SIG$sig: killed" >> "$work/out"
  wait "$pid"
  echo $? > "$work/rc"
  pid=
}
# exits_within SECONDS PID: waits for PID to end; kills it (and says no) when it outlives SECONDS.
# A hang then fails its case with a message instead of the whole test at ctest's TIMEOUT.
exits_within() {
  local deadline=$((SECONDS + $1))
  while kill -0 "$2" 2>/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || { kill -KILL "$2"; return 1; }
    sleep 0.05
  done
}
# interrupt_at POINT SIGNAL ARCHIVE: the install paused at POINT, then sent SIGNAL.
interrupt_at() {
  signal_paused "$1" "$2" --yes --no-verify --cuda-root "$root" --manifest "$(manifest_of "$3")" "$3"
}
install() { "$cli" --yes --no-verify --cuda-root "$root" --manifest "$(manifest_of "$tar")" "$tar" > "$work/out" 2>&1; }
history_count() { find "$root/.cudnn-install/history" -name '*.jsonl' | wc -l; }

case_paused() {  # case_paused LAYOUT ARCHIVE POINT SIGNAL EXIT WORDS
  local layout=$1 archive=$2 point=$3 sig=$4 code=$5 words=$6
  local name
  name="$(basename "$archive"), SIG$sig while paused $point"
  toolkit "$layout"
  manifest > "$work/before"
  interrupt_at "$point" "$sig" "$archive"
  check "$name: paused there" says "test hook: paused"
  check "$name: exit $code" rc "$code"
  check "$name: says so" says "stopped by $words"
  check "$name: says the toolkit is as before" says "as it was before"
  check "$name: toolkit and state as before" unchanged
  check "$name: no temporary, spool or journal" no_debris
}

tar=$corpus/good/$lname zip=$corpus/good/$wname
case_paused linux "$tar" spool TERM 143 "a request to terminate"
case_paused linux "$tar" stage INT 130 "an interrupt (SIGINT"
case_paused linux "$tar" swap HUP 129 "a hangup (SIGHUP)"
case_paused linux "$tar" commit TERM 143 "a request to terminate"
case_paused windows "$zip" stage TERM 143 "a request to terminate"
case_paused windows "$zip" swap INT 130 "an interrupt (SIGINT"

# Ctrl-C at the prompt: the spool the tar.xz was read into goes too.
toolkit linux
manifest > "$work/before"
timeout -s KILL 120 python3 "$source_dir/tests/support/pty_run.py" --signal-at-prompt INT y \
  "$cli" --no-verify --cuda-root "$root" --manifest "$(manifest_of "$tar")" "$tar" > "$work/out" 2>&1
echo $? > "$work/rc"
check "SIGINT at the prompt: exit 130" rc 130
check "SIGINT at the prompt: says so" says "stopped by an interrupt (SIGINT, Ctrl-C) at the prompt"
check "SIGINT at the prompt: toolkit and state as before" unchanged
check "SIGINT at the prompt: no temporary, spool or journal" no_debris

# After all that, the same install goes through and rolls back: nothing was left half-done.
toolkit linux
manifest > "$work/before"
interrupt_at stage INT "$tar"
"$cli" --yes --no-verify --cuda-root "$root" --manifest "$(manifest_of "$tar")" "$tar" > "$work/out" 2>&1
echo $? > "$work/rc"
check "an install after an interrupted one succeeds" rc 0
"$cli" --rollback --yes --cuda-root "$root" > "$work/out" 2>&1
echo $? > "$work/rc"
check "and rolls back" rc 0
check "to the toolkit as it was" tree_unchanged

# A signal while --rollback undoes a transaction: the rollback finishes (never half-way), the toolkit
# is as it was before the install, and the command exits with the signal's code.
toolkit linux
manifest > "$work/before"
check "rollback: the install to undo" install
signal_paused undo TERM --rollback --yes --cuda-root "$root"
check "SIGTERM during --rollback: paused there" says "test hook: paused while a transaction was undone"
check "SIGTERM during --rollback: exit 143" rc 143
check "SIGTERM during --rollback: says the rollback was finished first" says "was finished first"
check "SIGTERM during --rollback: the toolkit as before the install" tree_unchanged
check "SIGTERM during --rollback: no temporary or journal" no_debris
check "SIGTERM during --rollback: no transaction left" test "$(history_count)" = 0

# A rollback that cannot finish (another program put folders where the installed headers were): it
# stops journalled, and its error ends with the command that finishes it, by this program's path; that
# command, pasted once the folders are gone, finishes it.
toolkit linux
manifest > "$work/before"
check "a rollback left journalled: the install to undo" install
headers_to_folders() { for h in "$root"/include/cudnn*.h; do rm "$h" && mkdir -p "$h/sub"; done; }
while_paused=headers_to_folders signal_paused undo INT --rollback --yes --cuda-root "$root"
check "a rollback left journalled: exit 4" rc 4
check "a rollback left journalled: says so" says "The rollback is journalled: fix the cause and roll back again"
check "a rollback left journalled: names the command" says "To roll back: $cli --rollback --cuda-root $root"
rm -r "$root"/include/cudnn*.h
sed -n 's/^To roll back: //p' "$work/out" > "$work/finish.sh"
sh "$work/finish.sh" < /dev/null > "$work/out" 2>&1  # as printed: no --yes, no terminal
echo $? > "$work/rc"
check "the pasted command finishes the rollback: exit 0" rc 0
check "the pasted command finishes the rollback: the toolkit as before" tree_unchanged
check "the pasted command finishes the rollback: no temporary or journal" no_debris
check "the pasted command finishes the rollback: says so" says "the interrupted rollback of transaction"

# uninstall undoing two installs: a signal during the first undo lets it finish, then stops before
# the second with the signal's code, naming the command that finishes; that command finishes.
toolkit linux
manifest > "$work/before"
check "uninstall: the first install" install
rm "$root/include/cudnn.h"  # so that a second install has work
manifest > "$work/between"
check "uninstall: the second install" install
signal_paused undo INT uninstall --yes --cuda-root "$root"
check "SIGINT during uninstall: paused there" says "test hook: paused while a transaction was undone"
check "SIGINT during uninstall: exit 130" rc 130
check "SIGINT during uninstall: says what was done" says "stopped by an interrupt (SIGINT, Ctrl-C) after undoing transaction"
check "SIGINT during uninstall: says what is left" says "1 transaction remains"
check "SIGINT during uninstall: names the command" says "uninstall --cuda-root $root again to finish"
check "SIGINT during uninstall: the second install undone whole" \
  diff <(grep -v '\.cudnn-install' "$work/between") <(manifest | grep -v '\.cudnn-install')
check "SIGINT during uninstall: the first still recorded" test "$(history_count)" = 1
check "SIGINT during uninstall: no temporary or journal" no_debris
"$cli" uninstall --yes --cuda-root "$root" > "$work/out" 2>&1
echo $? > "$work/rc"
check "uninstall again: exit 0" rc 0
check "uninstall again: the toolkit as before both installs" tree_unchanged
check "uninstall again: no transaction left" test "$(history_count)" = 0

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
