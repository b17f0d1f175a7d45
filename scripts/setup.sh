#!/usr/bin/env bash
# Installs everything the build and the tests need (Debian packages only), then builds.
# Idempotent. Usage: scripts/setup.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ pkg-config python3 xz-utils zip unzip
  libzip-dev libarchive-dev liblzma-dev zlib1g-dev libssl-dev libcurl4-openssl-dev
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  clang-format             # scripts/lint.sh, the style check of the suite
  clang-tidy-22            # scripts/tidy.sh (bookworm-security; 14-16 cannot parse libstdc++ 12's <expected>, 19 is 9x slower)
  dpkg-dev file            # cpack's DEB (dpkg-shlibdeps) in the package test
  clang-16 libclang-rt-16-dev   # scripts/fuzz.sh (libFuzzer)
  bc time                  # bench/install-speed.sh
  ansible-core             # the Ansible role's test (packaging/ansible)
  python3-jsonschema       # the JSON answers checked against docs/schema (scripts/check-json-answer.py)
  python3-yaml             # the winget manifests checked against their schemas (tests/package_manifests.py)
  openssl ca-certificates  # fetch.e2e's self-signed TLS mirror, which the client must refuse
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "${1:-}" = --no-build ] && exit 0
cmake --preset release >/dev/null
cmake --build --preset release
echo "setup: built build/release/app/cudnn-install"
