#!/usr/bin/env bash
# Issue 18, class 10, on Windows: a toolkit whose bin\x64 is a link to a directory outside it (a
# junction or a directory symlink on Windows; under Wine a host symlink, which Windows programs see
# as a reparse point that GetFinalPathNameByHandleW resolves, as they see a junction). The plan
# names where the directory really is, dry runs included; the install, --rollback and uninstall
# write there only with a yes (refused without a terminal and without --yes, nothing changed), and
# the rollback leaves the outside directory byte for byte as before.
# Usage: outside_e2e_wine.sh CLI_EXE CORPUS_DIR SOURCE_DIR
set -uo pipefail
cli=$1 corpus=$2 source_dir=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$source_dir/tests/support/wine-e2e.sh"
root=$work/cuda outside=$work/elsewhere/x64
zip=$corpus/good/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip
mkdir -p "$root/bin" "$outside"
ln -s "$outside" "$root/bin/x64"
windows_toolkit "$root"  # its bin/x64 files land in the outside directory
r=(--cuda-root "$(host "$root")")
install=(--no-verify --no-path "${r[@]}" --manifest "$(host "$corpus/good/redistrib_local.json")" "$(host "$zip")")
named="bin/x64/ is $(host "$outside"), outside the toolkit's real path $(host "$root")"
run_exe --rollback --yes "${r[@]}"  # nothing to roll back: makes the state directory (its lock file)
tree_manifest "$root" > "$work/root-before"
tree_manifest "$outside" > "$work/outside-before"
same() { diff "$work/$1-before" <(tree_manifest "$2") || { echo "$2 changed"; return 1; }; }
not_same() { ! diff -q "$work/$1-before" <(tree_manifest "$2") > /dev/null; }

run_exe --dry-run "${install[@]}"
check "dry run: exit 0" rc 0
check "dry run: names where bin/x64 really is" says "warning  $named"
check "dry run: nothing written outside" same outside "$outside"

run_exe "${install[@]}"
check "install without a terminal or --yes: exit 1" rc 1
check "install without a terminal or --yes: refused, saying why" \
  says "refused to install: it changes files outside the toolkit's real path ($named)"
check "install without a terminal or --yes: says what to do" says "pass --yes to install anyway"
check "install without a terminal or --yes: nothing written outside" same outside "$outside"
check "install without a terminal or --yes: the toolkit unchanged" same root "$root"

run_exe --yes "${install[@]}"
check "install --yes: exit 0" rc 0
check "install --yes: names it" says "warning  $named"
check "install --yes: cuDNN's DLLs are in the outside directory" test -f "$outside/cudnn_ops64_9.dll"

for undo in --rollback uninstall; do
  doing=$([ "$undo" = uninstall ] && echo uninstall || echo "roll back")
  run_exe $undo --dry-run "${r[@]}"
  check "$undo --dry-run: names it" says "warning  $named"
  run_exe $undo "${r[@]}"
  check "$undo without a terminal or --yes: exit 1" rc 1
  check "$undo without a terminal or --yes: refused, saying why" \
    says "refused to $doing: it changes files outside the toolkit's real path ($named)"
  check "$undo without a terminal or --yes: nothing changed outside" not_same outside "$outside"
  [ "$undo" = uninstall ] && break
  run_exe --rollback --yes "${r[@]}"
  check "--rollback --yes: exit 0" rc 0
  check "--rollback --yes: the outside directory byte for byte as before" same outside "$outside"
  run_exe --yes "${install[@]}"  # again, for uninstall
  check "install --yes again: exit 0" rc 0
done
run_exe uninstall --yes "${r[@]}"
check "uninstall --yes: exit 0" rc 0
check "uninstall --yes: the outside directory byte for byte as before" same outside "$outside"
finish
