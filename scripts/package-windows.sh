#!/usr/bin/env bash
# The Windows release: dist/cudnn-install-<version>-windows-x86_64.zip and its .sha256, from the
# mingw build (cmake --preset mingw). The zip is flat (unzip it into a folder of its own, e.g.
# C:\Tools\cudnn-install):
#   cudnn-install.exe            stripped; imports only system DLLs (zlib, libzip, libstdc++ linked in)
#   LICENSE.txt                  this project's (MIT)
#   README.md
#   completions/cudnn-install.ps1
#   third-party/<name>.txt       libzip, zlib, fmt, spdlog, CLI11, nlohmann-json, and the mingw-w64
#                                and GCC runtimes linked into the exe (Debian's copyright files)
# and the package managers' manifests for that zip (packaging/scoop, packaging/winget): the release
# URL pattern and the zip's sha256 filled in.
#
# Usage: scripts/package-windows.sh [--exe PATH] [--out DIR] [--url-base URL]
#   --exe       default build/mingw/app/cudnn-install.exe
#   --out       default dist/
#   --url-base  where the release's files will be downloaded from; the zip's URL is
#               <url-base>/v<version>/<zip name>. Default $CUDNN_INSTALL_RELEASE_URL_BASE, else
#               https://github.com/cudnn-install/cudnn-install/releases/download
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exe=$root/build/mingw/app/cudnn-install.exe
out=$root/dist
url_base=${CUDNN_INSTALL_RELEASE_URL_BASE:-https://github.com/cudnn-install/cudnn-install/releases/download}
while [ $# -gt 0 ]; do
  case $1 in
    --exe) exe=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --url-base) url_base=${2%/}; shift 2 ;;
    *) echo "package-windows: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
[ -f "$exe" ] || { echo "package-windows: no $exe (cmake --preset mingw && cmake --build --preset mingw)" >&2; exit 1; }
version=$(sed -n 's/^project(cudnn_install VERSION \([0-9][0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[ -n "$version" ] || { echo "package-windows: no version in CMakeLists.txt's project()" >&2; exit 1; }
name=cudnn-install-$version-windows-x86_64
zip_name=$name.zip

# Licenses of what is linked into the exe, from the Debian packages the build used.
first_existing() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return 0; }; done; return 1; }
doc=/usr/share/doc
declare -A licenses=(
  [libzip]="$doc/libzip-dev/copyright $doc/libzip4/copyright"
  [zlib]="$doc/libz-mingw-w64-dev/copyright $doc/zlib1g/copyright"
  [fmt]="$doc/libfmt-dev/copyright"
  [spdlog]="$doc/libspdlog-dev/copyright"
  [CLI11]="$doc/libcli11-dev/copyright"
  [nlohmann-json]="$doc/nlohmann-json3-dev/copyright"
  [mingw-w64-runtime]="$doc/mingw-w64-x86-64-dev/copyright $doc/mingw-w64-common/copyright"
  [gcc-runtime]="$doc/gcc-mingw-w64-base/copyright $doc/g++-mingw-w64-x86-64-posix/copyright"
)

# The same inputs give the same zip: fixed times (SOURCE_DATE_EPOCH, else the last commit's) in
# the exe's PE header (strip honours SOURCE_DATE_EPOCH) and in the zip, sorted entries, no extra
# attributes.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 1700000000)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
stage=$work/$name
mkdir -p "$stage/completions" "$stage/third-party"
x86_64-w64-mingw32-strip -o "$stage/cudnn-install.exe" "$exe"
cp "$root/LICENSE" "$stage/LICENSE.txt"
cp "$root/README.md" "$stage/README.md"
cp "$root/packaging/completions/cudnn-install.ps1" "$stage/completions/cudnn-install.ps1"
for lib in "${!licenses[@]}"; do
  # shellcheck disable=SC2086
  src=$(first_existing ${licenses[$lib]}) ||
    { echo "package-windows: no license file for $lib (looked at ${licenses[$lib]})" >&2; exit 1; }
  cp "$src" "$stage/third-party/$lib.txt"
done

find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
mkdir -p "$out"
rm -f "$out/$zip_name" "$out/$zip_name.sha256"
(cd "$stage" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | TZ=UTC zip -q -X -D -9 "$work/$zip_name" -@)
mv "$work/$zip_name" "$out/$zip_name"
sha=$(sha256sum "$out/$zip_name" | cut -d' ' -f1)
printf '%s  %s\n' "$sha" "$zip_name" > "$out/$zip_name.sha256"

# Package managers' manifests for this zip (templates in packaging/scoop and packaging/winget):
# @VERSION@, @URL@, @SHA256@ (@SHA256_UPPER@), @URL_BASE@, @HOMEPAGE@ (the URL base without
# /releases/download). winget's go where winget-pkgs keeps them: manifests/<letter>/<publisher>/<name>/<version>.
url=$url_base/v$version/$zip_name
homepage=${url_base%/releases/download}
fill() {  # fill TEMPLATE OUTPUT
  sed -e "s|@VERSION@|$version|g" -e "s|@URL@|$url|g" -e "s|@SHA256@|$sha|g" \
      -e "s|@SHA256_UPPER@|${sha^^}|g" -e "s|@URL_BASE@|$url_base|g" -e "s|@HOMEPAGE@|$homepage|g" "$1" > "$2"
}
if [ -d "$root/packaging/scoop" ]; then
  mkdir -p "$out/scoop"
  fill "$root/packaging/scoop/cudnn-install.json" "$out/scoop/cudnn-install.json"
fi
if [ -d "$root/packaging/winget" ]; then
  wdir=$out/winget/manifests/c/cudnn-install/cudnn-install/$version
  rm -rf "$out/winget" && mkdir -p "$wdir"
  for t in "$root"/packaging/winget/*.yaml; do fill "$t" "$wdir/$(basename "$t")"; done
fi

echo "package-windows: $out/$zip_name ($(stat -c %s "$out/$zip_name") bytes, sha256 $sha)"
