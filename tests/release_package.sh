#!/usr/bin/env bash
# The Windows release zip (scripts/package-windows.sh), checked as a user would get it:
#   exactly the files it should hold, the .sha256 matching, the same zip from the same inputs;
#   the exe stripped, importing only system DLLs, carrying its version resource and its manifest
#   (asInvoker, UTF-8 active code page, long paths) in its .rsrc section;
#   the licenses of everything linked into it.
# Usage: release_package.sh EXE VERSION DIST
set -uo pipefail
exe=$1 version=$2 dist=$3
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
check() {  # check NAME COMMAND...
  local name=$1; shift
  if "$@"; then echo "ok: $name"; else failures=$((failures + 1)); echo "FAIL: $name"; fi
}

zip_name=cudnn-install-$version-windows-x86_64.zip
bash "$here/scripts/package-windows.sh" --exe "$exe" --out "$dist" || { echo "FAIL: package-windows.sh"; exit 1; }
zip=$dist/$zip_name

check "the zip exists" test -s "$zip"
check "its .sha256 matches" bash -c "cd '$dist' && sha256sum --quiet -c '$zip_name.sha256'"
check "the .sha256 names the zip" grep -qE "^[0-9a-f]{64}  $zip_name\$" "$zip.sha256"

cat > "$work/expected" <<EOF
LICENSE.txt
README.md
completions/cudnn-install.ps1
cudnn-install.exe
third-party/CLI11.txt
third-party/fmt.txt
third-party/gcc-runtime.txt
third-party/libzip.txt
third-party/mingw-w64-runtime.txt
third-party/nlohmann-json.txt
third-party/spdlog.txt
third-party/zlib.txt
EOF
unzip -Z1 "$zip" | LC_ALL=C sort > "$work/listing"
check "the zip holds exactly the release's files" diff "$work/expected" "$work/listing"

mkdir "$work/x"
unzip -q "$zip" -d "$work/x"
x=$work/x
check "the exe imports only system DLLs" bash "$here/scripts/check-windows-imports.sh" "$x/cudnn-install.exe"
check "the exe is stripped (no .debug sections, no symbols)" \
  bash -c "! x86_64-w64-mingw32-objdump -h '$x/cudnn-install.exe' | grep -q '\.debug' &&
           x86_64-w64-mingw32-nm '$x/cudnn-install.exe' 2>&1 | grep -q 'no symbols'"
check "the exe is smaller than the build's" test "$(stat -c %s "$x/cudnn-install.exe")" -lt "$(stat -c %s "$exe")"
check "LICENSE.txt is the project's MIT license" cmp "$x/LICENSE.txt" "$here/LICENSE"
check "README.md is the project's" cmp "$x/README.md" "$here/README.md"
check "the PowerShell completion" cmp "$x/completions/cudnn-install.ps1" "$here/packaging/completions/cudnn-install.ps1"
for pair in libzip:libzip zlib:"Jean-loup Gailly" fmt:"Victor Zverovich" spdlog:"Gabi Melman" CLI11:CLI11 \
            nlohmann-json:"Niels Lohmann" mingw-w64-runtime:mingw-w64 gcc-runtime:"GCC RUNTIME LIBRARY EXCEPTION"; do
  check "third-party/${pair%%:*}.txt is its license" grep -qi "${pair#*:}" "$x/third-party/${pair%%:*}.txt"
done

# The resources, read from the .rsrc section itself: the manifest (UTF-8 XML) and the version
# strings (UTF-16LE, as StringFileInfo stores them).
x86_64-w64-mingw32-objcopy -O binary --only-section=.rsrc "$x/cudnn-install.exe" "$work/rsrc"
check "the exe has a .rsrc section" test -s "$work/rsrc"
check "manifest: asInvoker" grep -qa 'requestedExecutionLevel level="asInvoker"' "$work/rsrc"
check "manifest: UTF-8 active code page" grep -qa '<activeCodePage[^>]*>UTF-8</activeCodePage>' "$work/rsrc"
check "manifest: long-path aware" grep -qa '<longPathAware[^>]*>true</longPathAware>' "$work/rsrc"
strings -el "$work/rsrc" > "$work/version-strings"
for key in FileVersion ProductVersion ProductName; do
  check "version resource: $key" grep -qx "$key" "$work/version-strings"
done
check "version resource: the version $version" grep -qx "$version" "$work/version-strings"
check "version resource: the product name" grep -qx "cudnn-install" "$work/version-strings"
check "objdump sees the resource directory" bash -c "x86_64-w64-mingw32-objdump -p '$x/cudnn-install.exe' | grep -q 'Resource Directory'"

# The same inputs give the same bytes.
sha=$(cut -d' ' -f1 "$zip.sha256")
bash "$here/scripts/package-windows.sh" --exe "$exe" --out "$work/again" > /dev/null
check "packaging again gives the same zip" test "$(sha256sum "$work/again/$zip_name" | cut -d' ' -f1)" = "$sha"

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "release zip: $zip ($(stat -c %s "$zip") bytes)"
