#!/usr/bin/env bash
# The whole test suite, each preset through ctest:
#   dev    the normal Linux build
#   asan   the Linux build with ASan+UBSan
#   mingw  the Windows build (mingw-w64 cross), its tests run under Wine
#   release  the build scripts/setup.sh makes, running the README's main job (scripts/demo.sh)
# Usage: scripts/test.sh [dev|asan|mingw|release]...   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-build
presets=("$@"); [ ${#presets[@]} -gt 0 ] || presets=(dev asan mingw release)

# One persistent, headless wineserver for the whole Windows run (each exe would otherwise pay
# ~2 s of Wine start-up); stopped on exit whatever happens.
start_wine() {
  export WINEDEBUG=-all
  wineserver -p </dev/null >/dev/null 2>&1 || true   # (fails harmlessly when one runs already)
  trap 'wineserver -k >/dev/null 2>&1 || true' EXIT
  wine cmd /c exit </dev/null >/dev/null 2>&1 || true   # warm-up: the prefix and its services
  # and the desktop process, started here with no pipe to inherit (see tests/windows/start_desktop.cpp)
  wine build/mingw/tests/windows/start_desktop.exe </dev/null >/dev/null 2>&1 || true
}

for preset in "${presets[@]}"; do
  [ "$preset" = mingw ] && scripts/setup-windows.sh
  echo "=== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "=== $preset: test"
  if [ "$preset" = release ]; then scripts/demo.sh; continue; fi
  [ "$preset" = mingw ] && start_wine
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --preset "$preset"
done
