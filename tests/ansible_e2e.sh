#!/usr/bin/env bash
# The Ansible role (packaging/ansible) with Debian's ansible-playbook, -c local, against a sandbox
# toolkit and the local mirror: check mode changes nothing, the first run changes, the second does
# not, absent rolls back to the tree before, and a bad version fails with the tool's message.
# Usage: ansible_e2e.sh CLI
set -uo pipefail
cli=$1
here=$(cd "$(dirname "$0")/.." && pwd)
command -v ansible-playbook > /dev/null || { echo "ansible-playbook not installed (scripts/setup.sh installs it)"; exit 1; }
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
failures=0 passes=0
check() { local name=$1; shift; if "$@"; then passes=$((passes + 1)); else failures=$((failures + 1)); echo "FAIL: $name"; fi; }

# The role runs the tool through the JSON contract's check: an answer that breaks it exits 99.
printf '#!/bin/sh\nexec bash "%s/tests/support/json-answer.sh" "%s" "$@"\n' "$here" "$cli" > "$work/cli"
chmod +x "$work/cli"
cli=$work/cli

python3 "$here/scripts/make-test-mirror.py" "$work/mirror" || exit 1
python3 "$here/scripts/mirror-server.py" "$work/mirror" --port-file "$work/port" --lifetime 600 &
server_pid=$!
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done  # a loaded machine starts python slowly
mirror="http://127.0.0.1:$(cat "$work/port")/"
tk=$work/cuda-13.0
mkdir -p "$tk/include" "$tk/lib" "$tk/bin" "$work/etc/ld.so.conf.d"
echo "#define CUDA_VERSION 13000" > "$tk/include/cuda.h"
echo cudart > "$tk/lib/libcudart.so.13"
ln -s lib "$tk/lib64"

export ANSIBLE_ROLES_PATH=$here/packaging/ansible/roles ANSIBLE_HOME=$work/ansible-home ANSIBLE_NOCOLOR=1 \
  ANSIBLE_LOCAL_TEMP=$work/ansible-tmp ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
  ANSIBLE_LOCALHOST_WARNING=0 ANSIBLE_INVENTORY_UNPARSED_WARNING=0
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY CUDNN_INSTALL_MIRROR
play() {  # play [ansible-playbook args]: output in $work/play, exit status in $work/rc
  ansible-playbook -c local -i localhost, "$here/tests/ansible/role-test.yml" \
    -e "sandbox=$work mirror=$mirror cli=$cli" "$@" > "$work/play" 2>&1
  echo $? > "$work/rc"
}
recap() {  # recap changed=N failed=N
  grep -q "localhost.*changed=$1 .*failed=$2 " "$work/play" || { echo "expected changed=$1 failed=$2:"; cat "$work/play"; return 1; }
}
snapshot() { (cd "$tk" && find . -path ./.cudnn-install -prune -o -print0 | sort -z | xargs -0 ls -ld --time-style=+ | awk '{print $1, $5, $NF}'; find . -path ./.cudnn-install -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }

snapshot > "$work/before"
play --check
check "check mode on a fresh toolkit: would change" recap 1 0
snapshot > "$work/after-check"
check "check mode changed nothing" cmp "$work/before" "$work/after-check"
play
check "first run: changed" recap 1 0
check "first run installed" grep -q "CUDNN_MINOR 99" "$tk/include/cudnn_version.h"
play
check "second run: ok, not changed" recap 0 0
play --check
check "check mode after the install: not changed" recap 0 0
snapshot > "$work/installed"
play --check -e wanted=absent
check "check mode absent: nothing changed on disk" bash -c "$(declare -f snapshot); tk=$tk; snapshot | cmp - '$work/installed'"
play -e wanted=absent
check "absent: changed" recap 1 0
snapshot > "$work/after-absent"
check "absent rolled back to the tree before" cmp "$work/before" "$work/after-absent"
play -e wanted=absent
check "absent again: ok" recap 0 0
play -e version=9.97
check "a bad version fails" recap 0 1
check "with the tool's message" grep -q "cuDNN 9.97 is not a release this tool knows of" "$work/play"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
