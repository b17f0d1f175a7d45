#!/usr/bin/env bash
# The style check of the suite: every C++ file of lib/, app/ and tests/ (and bench/*.c) as clang-format
# (.clang-format) would write it. Prints the files that differ; exit 1 when there are any.
# Usage: scripts/lint.sh [--fix]   (--fix rewrites them in place)
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files 'lib/*.cpp' 'lib/*.hpp' 'app/*.cpp' 'app/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.c')
if [ "${1:-}" = --fix ]; then clang-format -i "${files[@]}"; exit 0; fi
# One clang-format process for all files; it names each file that differs in its warnings.
mapfile -t unformatted < <(clang-format --dry-run "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning:.*/\1/p' | sort -u)
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "lint: not formatted as .clang-format says (fix with scripts/lint.sh --fix):"
  printf '  %s\n' "${unformatted[@]}"
  exit 1
fi
echo "lint: ${#files[@]} files formatted"
