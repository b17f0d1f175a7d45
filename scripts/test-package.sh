#!/usr/bin/env bash
# Builds the DEB of a build directory, unpacks it into a scratch root (dpkg -x), runs the
# installed cudnn-install, checks the package's dependencies, and builds a project that uses
# the installed CMake package. Usage: test-package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
(cd "$build" && cpack -G DEB -B "$scratch/pkg" >/dev/null)
deb=$(ls "$scratch"/pkg/*.deb)
echo "package: $(basename "$deb")"
depends=$(dpkg-deb -f "$deb" Depends)
echo "depends: $depends"
for lib in libzip libarchive libssl libspdlog libfmt; do
  grep -q "$lib" <<<"$depends" || { echo "FAIL: Depends lacks $lib" >&2; exit 1; }
done
dpkg -x "$deb" "$scratch/root"
version=$("$scratch/root/usr/bin/cudnn-install" --version)
echo "installed binary: $version"
[[ "$version" == "cudnn-install "* ]] || { echo "FAIL: --version said '$version'" >&2; exit 1; }
for f in usr/share/man/man1/cudnn-install.1 usr/share/bash-completion/completions/cudnn-install \
         usr/include/cudnn_install/txn.hpp usr/lib/cmake/cudnn_install/cudnn_installConfig.cmake; do
  [ -e "$scratch/root/$f" ] || { echo "FAIL: $f is not in the package" >&2; exit 1; }
done
for f in usr/bin/cudnn-install usr/lib/libcudnn_install_core.a; do  # CPACK_STRIP_FILES, and --strip-debug for the .a
  ! objdump -h "$scratch/root/$f" | grep -q '\.debug_info' || { echo "FAIL: $f carries debug information" >&2; exit 1; }
done
cmake -S "$src/tests/package_consumer" -B "$scratch/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$scratch/root/usr" >/dev/null
cmake --build "$scratch/consumer" >/dev/null
"$scratch/consumer/consumer"
echo "package test: ok"
