#!/usr/bin/env bash
# Runs cudnn-install and, when --json is among its arguments, checks its stdout against the JSON
# contract (scripts/check-json-answer.py). The output and exit code are the tool's; a broken
# contract adds its reasons to stdout (so that a test's parse fails too) and exits 99.
# Usage: json-answer.sh CLI ARGS...
here=$(cd "$(dirname "$0")/../.." && pwd)
json=no
for a in "${@:2}"; do
  [ "$a" = "--" ] && break
  [ "$a" = "--json" ] && json=yes
done
[ $json = yes ] || exec "$@"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" > "$out"
rc=$?
cat "$out"
if ! reasons=$(/usr/bin/python3 "$here/scripts/check-json-answer.py" "$rc" < "$out" 2>&1); then
  printf 'json contract broken by: %s\n%s\n' "$*" "$reasons"
  exit 99
fi
exit $rc
