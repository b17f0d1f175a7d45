#!/usr/bin/env bash
# clang-tidy (.clang-tidy) over lib/ and app/: every translation unit of BUILD_DIR's compile
# database that is one of their sources, or a unity batch of them (the asan preset's: 13 batches
# instead of ~110 files, each of which would parse the same heavy headers again). Any finding fails.
# clang-tidy 22 (Debian 12: bookworm-security) skips the system headers that made 19 ten times slower.
# Usage: scripts/tidy.sh BUILD_DIR   (scripts/setup.sh installs clang-tidy-22)
set -euo pipefail
build=${1:?usage: tidy.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
tidy=$(command -v clang-tidy-22 || true)
[ -n "$tidy" ] || { echo "tidy: clang-tidy-22 is not installed (run scripts/setup.sh)" >&2; exit 1; }
mapfile -t units < <(python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, sys
root = sys.argv[2]
for entry in json.load(open(sys.argv[1])):
    f = entry["file"]
    if f.startswith((root + "/lib/", root + "/app/")) or ("/Unity/" in f and ("/lib/" in f or "/app/" in f)):
        print(f)
PY
)
[ ${#units[@]} -gt 0 ] || { echo "tidy: no lib/ or app/ sources in $build/compile_commands.json" >&2; exit 1; }
extra=()
# The mingw build's commands name x86_64-w64-mingw32-g++-posix; clang takes the win32 threads
# variant of its C++ headers (no std::mutex) unless given the posix variant's instead.
if grep -q 'mingw32-g++-posix' "$build/compile_commands.json"; then
  cxx=$(dirname "$(x86_64-w64-mingw32-g++-posix -print-libgcc-file-name)")/include/c++
  extra=(--extra-arg=-nostdinc++ --extra-arg="-isystem$cxx" --extra-arg="-isystem$cxx/x86_64-w64-mingw32"
         --extra-arg="-isystem$cxx/backward")
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
rc=0
printf '%s\0' "${units[@]}" | xargs -0 -P "$(nproc)" -n 1 "$tidy" -p "$build" --quiet "${extra[@]}" > "$out" 2>&1 || rc=$?
findings=$(grep -cE '(error|warning): ' "$out" || true)
echo "tidy: ${#units[@]} translation units in $(( $(date +%s) - start )) s, $findings findings"
if [ "$rc" -ne 0 ] || [ "$findings" -ne 0 ]; then
  grep -E '(error|warning): ' "$out" | sort -u | sed "s|$root/||"
  [ "$findings" -ne 0 ] || cat "$out"
  exit 1
fi
