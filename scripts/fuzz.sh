#!/usr/bin/env bash
# Builds the libFuzzer targets (clang-16) and runs each for a bounded time, seeded with the test
# corpus. Prints the executions each reached. Usage: scripts/fuzz.sh [SECONDS_PER_TARGET]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target fuzz_archive_name fuzz_archive_reader
work=build/fuzz/work
rm -rf "$work"; mkdir -p "$work/name" "$work/reader" "$work/corpus"
python3 scripts/make-test-archives.py "$work/corpus" >/dev/null
awk -F'\t' '!/^#/ && NR <= 200 { print $1 > (w "/name/seed-" NR) }' w="$work" data/known-archives.tsv
# Every archive of the corpus seeds the reader: the good ones, the hostile ones (refused by the
# listing's rules) and the tricky ones (modes, long names, CUDA's own files, too big). Many share a
# file name, so each seed is named after its path in the corpus.
seed_name() { local rel=${1#"$work/corpus/"}; echo "${rel//\//_}"; }
while IFS= read -r -d '' f; do
  { printf '\x01'; cat "$f"; } > "$work/reader/$(seed_name "$f")"
done < <(find "$work/corpus" -name '*.zip' -print0)
while IFS= read -r -d '' f; do
  { printf '\x00'; cat "$f"; } > "$work/reader/$(seed_name "$f")"
done < <(find "$work/corpus" \( -name '*.tar.xz' -o -name '*.tgz' \) -print0)
for target in name reader; do
  echo "=== fuzz_archive_$target for ${seconds}s"
  build/fuzz/tests/fuzz/fuzz_archive_$target -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=4096 \
    -artifact_prefix="$work/" "$work/$target" 2>&1 | grep -E "DONE|ERROR|SUMMARY|Done" || true
done
