#!/usr/bin/env bash
# Everything the Windows cross build and its Wine test suite need, from Debian packages only:
#   - mingw-w64 (posix thread model), Wine, zlib for mingw;
#   - libzip, which Debian ships no mingw build of: cross-built from Debian's source package;
#   - GoogleTest: cross-built from /usr/src/googletest;
#   - the header-only libraries (fmt, spdlog, CLI11, nlohmann-json) through a directory of their own,
#     so that the cross build never sees the host's /usr/include.
# Everything lands in build/win-deps/ (the prefix the mingw preset points at). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
deps=$root/build/win-deps
mkdir -p "$deps"

packages=(g++-mingw-w64-x86-64 wine wine64 libz-mingw-w64-dev dpkg-dev
          libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev googletest cmake ninja-build)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd=sudo
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup-windows: installing ${missing[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

toolchain=$root/cmake/mingw-w64.cmake

# Header-only libraries: symlinks to exactly these directories.
mkdir -p "$deps/include"
for d in fmt spdlog CLI nlohmann; do ln -sfn "/usr/include/$d" "$deps/include/$d"; done

# libzip, static, from Debian's source package (a temporary deb-src line).
if [ ! -f "$deps/lib/libzip.a" ]; then
  work=$(mktemp -d)
  src_list=/etc/apt/sources.list.d/cudnn-install-deb-src.sources
  sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources | $sudo_cmd tee "$src_list" >/dev/null
  $sudo_cmd apt-get update -qq
  (cd "$work" && apt-get source -qq libzip >/dev/null 2>&1)
  $sudo_cmd rm -f "$src_list"
  $sudo_cmd apt-get update -qq
  src=$(find "$work" -maxdepth 1 -type d -name 'libzip-*' | head -1)
  cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX="$deps" -DBUILD_SHARED_LIBS=OFF -DBUILD_TOOLS=OFF -DBUILD_REGRESS=OFF \
    -DBUILD_EXAMPLES=OFF -DBUILD_DOC=OFF -DBUILD_OSSFUZZ=OFF -DENABLE_BZIP2=OFF -DENABLE_LZMA=OFF \
    -DENABLE_ZSTD=OFF -DENABLE_OPENSSL=OFF -DENABLE_GNUTLS=OFF -DENABLE_MBEDTLS=OFF >/dev/null
  cmake --build "$work/build" >/dev/null
  cmake --install "$work/build" >/dev/null
  rm -rf "$work"
  echo "setup-windows: built libzip for mingw"
fi

# GoogleTest and GoogleMock, static.
if [ ! -f "$deps/lib/libgtest.a" ]; then
  cmake -S /usr/src/googletest -B "$deps/gtest-build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$toolchain" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$deps" -Dgtest_disable_pthreads=OFF >/dev/null
  cmake --build "$deps/gtest-build" >/dev/null
  cmake --install "$deps/gtest-build" >/dev/null
  rm -rf "$deps/gtest-build"
  echo "setup-windows: built GoogleTest for mingw"
fi

# A headless Wine prefix (no display: the null graphics driver).
export WINEDEBUG=-all
if [ ! -d "${WINEPREFIX:-$HOME/.wine}/drive_c" ]; then
  wine reg add 'HKCU\Software\Wine\Drivers' /v Graphics /d null /f >/dev/null 2>&1 || true
  wineserver -w
fi
echo "setup-windows: ready (cmake --preset mingw)"
