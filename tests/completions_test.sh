#!/usr/bin/env bash
# The shell completions offer exactly the options and commands that `--help` documents (those of the
# main command and of every subcommand), and none it does not: an option added or removed without
# its completion fails here. --force-name (accepted for old scripts, does nothing) is not offered.
# The bash completion is also run: its function completes an option and a subcommand.
# Usage: completions_test.sh CLI
set -uo pipefail
cli=$1
here=$(cd "$(dirname "$0")/.." && pwd)
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
options() { grep -oE -- '--[a-z][a-z-]+' | sort -u; }

subcommands=$("$cli" --help | sed -n '/^Subcommands:/,$p' | awk 'NF && $1 !~ /:$/ {print $1}' | sort -u)
[ -n "$subcommands" ] || fail "no subcommands in --help"
documented=$({ "$cli" --help; for c in $subcommands; do "$cli" "$c" --help; done; } | options | grep -vx -- --force-name)
[ "$(echo "$documented" | wc -l)" -gt 20 ] || fail "too few options read from --help: $documented"

# shellcheck disable=SC2016 # a sed address: $cur is the literal text of the completion script
bash_words=$(sed -n '/compgen -W "--/,/-- "\$cur"/p' "$here/packaging/completions/cudnn-install.bash" | options)
ps_words=$(grep -oE "'--?[a-z][a-z-]*'" "$here/packaging/completions/cudnn-install.ps1" | tr -d "'" | options)
diff <(echo "$documented") <(echo "$bash_words") >/dev/null || fail "bash options differ from --help (< help, > completion): $(diff <(echo "$documented") <(echo "$bash_words") | grep '^[<>]' | tr '\n' ' ')"
diff <(echo "$documented") <(echo "$ps_words") >/dev/null || fail "PowerShell options differ from --help (< help, > completion): $(diff <(echo "$documented") <(echo "$ps_words") | grep '^[<>]' | tr '\n' ' ')"
for c in $subcommands; do
  grep -q "compgen -W \"[^\"]*\\b$c\\b" "$here/packaging/completions/cudnn-install.bash" || fail "bash lacks the subcommand $c"
  grep -q "'$c'" "$here/packaging/completions/cudnn-install.ps1" || fail "PowerShell lacks the subcommand $c"
done

# shellcheck source=/dev/null
source "$here/packaging/completions/cudnn-install.bash"
complete_words() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _cudnn_install; echo "${COMPREPLY[*]}"; }
[ "$(complete_words cudnn-install --mir)" = --mirror ] || fail "bash: --mir does not complete to --mirror"
[ "$(complete_words cudnn-install fet)" = fetch ] || fail "bash: fet does not complete to fetch"
[ "$(complete_words cudnn-install fetch --platform win)" = windows-x86_64 ] || fail "bash: --platform win"

[ "$failures" = 0 ] && echo "completions match --help"
[ "$failures" = 0 ]
