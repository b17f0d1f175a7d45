# shellcheck shell=bash
# Sourced by signal_e2e.sh and signal_e2e_wine.sh, with `root` (the toolkit), `work` (scratch) and a
# `manifest` function (every entry under the toolkit) set: the checks after a signal.
# shellcheck disable=SC2154 # work is set by the sourcing script
unchanged() { diff "$work/before" <(manifest) > "$work/diff" || { echo "the toolkit changed:"; cat "$work/diff"; return 1; }; }
# The same without the state directory (where a committed install leaves its caches and history).
tree_unchanged() {
  diff <(grep -v '\.cudnn-install' "$work/before") <(manifest | grep -v '\.cudnn-install') > "$work/diff" ||
    { echo "the toolkit changed:"; cat "$work/diff"; return 1; }
}
# No temporary, journal or spool left anywhere in the toolkit.
# shellcheck disable=SC2154 # root is set by the sourcing script
no_debris() {
  local left; left=$(find "$root" -name '.cudnn-install-*' -o -path "$root/.cudnn-install/spool" -o -name 'journal.jsonl')
  [ -z "$left" ] || { echo "left behind: $left"; return 1; }
}
