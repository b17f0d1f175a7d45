#!/usr/bin/env bash
# Lists every place in lib/ and app/ where a std::filesystem::path is made from a narrow string
# (construction, assignment, operator/, /=). On Windows such a conversion reads the bytes in the C
# runtime's code page, not as UTF-8 (ARCHITECTURE.md, "Text is UTF-8 everywhere"): full paths
# must go through utf8_path. It compiles each source once, syntax only, against a copy of
# libstdc++'s bits/fs_path.h whose narrow-string overloads are marked [[deprecated]], so the
# compiler names each call site. Not part of the suite (about 3 minutes on 2 cores).
# Usage: scripts/check-utf8-paths.sh [build dir with compile_commands.json, default build/dev]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/dev}
overlay=$(mktemp -d)
trap 'rm -rf "$overlay"' EXIT
mkdir -p "$overlay/bits"
includes=$(echo '#include <filesystem>' | g++ -std=c++2b -x c++ -E -H - 2>&1 >/dev/null)
header=$(printf '%s\n' "$includes" | sed -n 's/^\.* \(.*bits\/fs_path\.h\)$/\1/p' | sed -n 1p)
python3 - "$header" "$overlay/bits/fs_path.h" <<'PY'
import sys
text = open(sys.argv[1]).read()
anchor = "    path(string_type&& __source, format = auto_format)\n"
assert text.count(anchor) == 1, "unexpected fs_path.h: update this script"
marked = '    [[deprecated("narrow string to path")]] '
extra = (
    marked + "path(const std::string& __s, format __f = auto_format) : path(__s.c_str(), __f) {}\n" +
    marked + "path(std::string_view __s, format __f = auto_format) : path(__s.begin(), __s.end(), __f) {}\n" +
    marked + "path& operator/=(const std::string& __s) { return *this /= __s.c_str(); }\n" +
    marked + "path& operator/=(std::string_view __s) { return *this /= std::string(__s).c_str(); }\n" +
    marked + "path& operator=(const std::string& __s) { return *this = __s.c_str(); }\n")
text = text.replace(anchor, extra + marked + anchor.lstrip(), 1)
open(sys.argv[2], "w").write(text)
PY
python3 - "$build/compile_commands.json" "$overlay" <<'PY' | sort -u
import json, shlex, subprocess, sys, concurrent.futures as cf, re
jobs = []
for e in json.load(open(sys.argv[1])):
    if not re.search(r"/(lib|app)/", e["file"]):
        continue
    args = shlex.split(e["command"])
    if "ccache" in args[0]:
        args = args[1:]
    if "-o" in args:
        i = args.index("-o")
        del args[i:i + 2]
    jobs.append((args[:1] + ["-I" + sys.argv[2]] + args[1:] + ["-fsyntax-only"], e["directory"]))
def run(job):
    return subprocess.run(job[0], cwd=job[1], capture_output=True, text=True).stderr
with cf.ThreadPoolExecutor(2) as pool:
    for err in pool.map(run, jobs):
        for line in err.splitlines():
            m = re.match(r"(\S+?):(\d+):\d+: warning: .*narrow string to path", line)
            if m and "/bits/" not in m.group(1):
                print(f"{m.group(1)}:{m.group(2)}")
PY
