#!/usr/bin/env bash
# The whole test suite: the normal (dev) build and the ASan+UBSan build, each through ctest.
# Usage: scripts/test.sh [dev|asan]...   (default: dev asan)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-build
presets=("$@"); [ ${#presets[@]} -gt 0 ] || presets=(dev asan)
for preset in "${presets[@]}"; do
  echo "=== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "=== $preset: test"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --preset "$preset"
done
