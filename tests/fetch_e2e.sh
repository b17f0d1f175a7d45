#!/usr/bin/env bash
# End to end: the real binary (libcurl, or WinHTTP under Wine) against scripts/mirror-server.py on
# 127.0.0.1 serving a mirror tree from scripts/make-test-mirror.py, into a sandbox toolkit.
# Usage: fetch_e2e.sh CLI [wine]
# With wine, CLI is the Windows build: its host platform is windows-x86_64 (zip archives, a Windows
# toolkit layout), the paths it is given are Windows paths (Z:\...), its cache is CUDNN_INSTALL_CACHE,
# and installs pass --no-path (tests/support/fetch-e2e.sh).
set -uo pipefail
cli=$1 runner=${2:-}
# shellcheck source-path=SCRIPTDIR
source "$(dirname "$0")/support/fetch-e2e.sh"
python3 "$here/scripts/make-test-mirror.py" "$work/mirror" || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/tls.key" -out "$work/tls.crt" 2>/dev/null && cat "$work/tls.crt" "$work/tls.key" > "$work/tls.pem" ||
  exit 1
start_mirror_server --drop-after 100000 --proxy-for mirror.invalid --proxy-auth 'build@corp:s:cret' \
  --tls "$work/tls.pem" "$work/tls-port"
a999=cudnn-$plat-9.99.0.1_cuda13-archive.$ext

# list: the table's releases and the mirror's 9.99.0.1, for CUDA 13 on this platform
run list --mirror "$mirror"
check "list" rc 0
check "list shows the mirror's release" says "9.99.0.1    $a999"
check "list shows the table's releases" says "cudnn-$plat-9.13.0.50_cuda13-archive.$ext"

# fetch: resolved from the mirror's manifest, the connection dropped at 100000 bytes, resumed
run fetch 9.99 --mirror "$mirror" -o "$(host "$work/out-dir")"
check "fetch" rc 0
check "fetch says why" says "CUDA 13.0 toolkit → $a999"
check "the server dropped the first transfer" grep -q "$a999 - 200 dropped" "$work/server.log"
check "the download resumed with a Range request" grep -q "$a999 bytes=100000- 206" "$work/server.log"
check "the archive is in the cache, byte for byte" cmp "$cache/$a999" "$work/mirror/cudnn/$plat/$a999"
check "and in -o DIR" cmp "$work/out-dir/$a999" "$cache/$a999"
check "no .part is left" test ! -e "$cache/$a999.part"

# a cached archive is never downloaded again; the manifests are revalidated with their ETag (304)
gets=$(grep -c "$a999" "$work/server.log")
run fetch 9.99 --mirror "$mirror"
check "fetch again" rc 0
check "fetch again says in the cache" says "in the cache: "
check "no second download" test "$(grep -c "$a999" "$work/server.log")" = "$gets"
check "manifest answered 304" grep -q "redistrib_9.99.0.json - 304" "$work/server.log"

# refusals: a mirror that lies about a release the table knows, a 404, an unknown version, no variant
# (the liar and the 404 are Linux archives: asked for by --platform, so that Windows downloads them too)
run fetch 9.10.2 --cuda 12 --platform linux-x86_64 --mirror "$mirror"
check "wrong bytes refused" rc 2
check "wrong bytes: the message" says "Nothing was installed"
check "wrong bytes: the manifest's value was not taken" says "another sha256 or size than the built-in table"
check "wrong bytes are not kept" test ! -e "$cache/cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz"
run fetch 9.98 --platform linux-x86_64 --mirror "$mirror"
check "404 refused" rc 4
check "404 message" says "HTTP 404"
run fetch 9.97 --mirror "$mirror"
check "unknown version" rc 2
check "unknown version message" says "cuDNN 9.97 is not a release this tool knows of"
run fetch 9.99 --cuda 11 --mirror "$mirror"
check "no archive for CUDA 11" rc 2
check "no archive for CUDA 11: what exists" says "$plat: CUDA 12, CUDA 13"

# offline: the mirror unreachable, cached manifests and archives serve; the table alone resolves
dead="http://127.0.0.1:9/"
run fetch 9.99 --mirror "$dead"
check "offline fetch of a cached archive" rc 0
check "offline fetch says so" says "cannot be reached"
run list --mirror "$dead"
check "offline list" rc 0
check "offline list has the table" says "cudnn-$plat-9.13.0.50_cuda13-archive.$ext"
rm -rf "$cache/manifests"
run fetch 9.19.0.56 --mirror "$dead"
check "offline, no cache: resolved from the table, download fails" rc 4
check "offline, no cache: the table's archive was chosen" says "cudnn-$plat-9.19.0.56_cuda13-archive.$ext"

# a full disk: the cache's writes fail (a file size limit); the .part is resumed later
if [ -z "$runner" ]; then
  rm -f "$cache/$a999"
  (trap '' XFSZ; ulimit -f 64; exec "$cli" fetch 9.99 --mirror "$mirror" --cuda-root "$tk") > "$work/out" 2>&1
  echo $? > "$work/rc"
  check "full disk" rc 4
  check "full disk message" says "cannot write"
  run fetch 9.99 --mirror "$mirror"
  check "after the full disk, fetch resumes" rc 0
  check "resumed bytes are right" cmp "$cache/$a999" "$work/mirror/cudnn/$plat/$a999"
fi

# install by version: dry run writes nothing, then the real install, then a second run changes nothing
# (the archive is cached, its manifest is not: the preview must read the manifest and keep it out of the cache)
rm -rf "$cache/manifests"
cache_listing() { (cd "$work/cache" && find . -printf '%p %s %T@\n' | sort); }
cache_listing > "$work/cache.before"
run 9.99 --dry-run --mirror "$mirror"
check "dry run" rc 0
check "dry run writes nothing" test ! -e "$tk/include/cudnn_version.h"
check "dry run writes nothing to the cache" cmp "$work/cache.before" <(cache_listing)
run 9.99 --yes --no-verify "${install_args[@]}" --mirror "$mirror"
check "install 9.99" rc 0
check "installed" grep -q "CUDNN_MINOR 99" "$tk/include/cudnn_version.h"
run 9.99 --yes --no-verify "${install_args[@]}" --mirror "$mirror"
check "second install: nothing to do" says "already installed here: nothing to do"
run list --mirror "$mirror"
check "list marks the installed one" says "* 9.99.0.1"

# Through a proxy: http_proxy names the server, which proxies for mirror.invalid only, a name that
# resolves nowhere; so the download works only if the client really goes through the proxy
# (libcurl reads http_proxy itself; the WinHTTP client passes it as a named proxy). The proxy wants
# a user and password (407 without them), given percent-encoded in the variable as curl reads them
# (the WinHTTP client answers the 407 with them).
use_cache() {  # use_cache DIR: the download cache of the next run, on either platform
  if [ -n "$runner" ]; then
    CUDNN_INSTALL_CACHE=$(host "$1/cudnn-install"); export CUDNN_INSTALL_CACHE
  else
    export XDG_CACHE_HOME=$1
  fi
}
proxy="http://build%40corp:s%3Acret@127.0.0.1:$(cat "$work/port")"
# shellcheck disable=SC2030 # http_proxy is changed in this subshell only, deliberately
(use_cache "$work/refused-cache"; export http_proxy=${proxy/s%3Acret/wrong}
 run fetch 9.99 --mirror "http://mirror.invalid/")
check "a proxy that refuses the credentials: the fetch fails" rc 4
check "and says what the proxy wants" says "HTTP 407"
check "and how to give it" says "https_proxy=http://USER:PASSWORD@HOST:PORT"
# shellcheck disable=SC2030,SC2031 # http_proxy is changed in this subshell only, deliberately
(use_cache "$work/proxied-cache"; export http_proxy=$proxy; run fetch 9.99 --mirror "http://mirror.invalid/")
check "fetch through http_proxy, with its user and password" rc 0
check "the download went through the proxy" grep -q "$a999 - 200 .*via-proxy" "$work/server.log"
check "and arrived whole" cmp "$work/proxied-cache/cudnn-install/$a999" "$work/mirror/cudnn/$plat/$a999"
proxied=$(grep -c via-proxy "$work/server.log")
# shellcheck disable=SC2031 # http_proxy is set in each subshell only, deliberately
(use_cache "$work/unproxied-cache"; export http_proxy=$proxy no_proxy=mirror.invalid
 run list --mirror "http://mirror.invalid/")
check "no_proxy: the proxy is not used" test "$(grep -c via-proxy "$work/server.log")" = "$proxied"
check "no_proxy: the mirror is looked up directly, and the table is listed" says "releases come from the built-in table only"

# TLS is verified: an https mirror whose certificate no trusted authority signed (self-signed, for
# 127.0.0.1) is refused before any request is sent; nothing is downloaded.
(use_cache "$work/tls-cache"; run fetch 9.19.0.56 --mirror "https://127.0.0.1:$(cat "$work/tls-port")/")
check "an untrusted certificate: the fetch is refused" rc 2
check "an untrusted certificate: it says so" says "the server's certificate is not trusted"
check "an untrusted certificate: no request got through" bash -c "! grep -q 9.19.0.56 '$work/server.log'"
check "an untrusted certificate: nothing in the cache" \
  bash -c "! ls '$work/tls-cache/cudnn-install' 2>/dev/null | grep -q 9.19.0.56"

# --json: one answer each, checked against docs/schema by tests/support/json-answer.sh (exit 99 when not)
jrun() {
  bash "$here/tests/support/json-answer.sh" ${runner:+"$runner"} "$cli" "$@" --json --cuda-root "$(host "$tk")" > "$work/out" 2> "$work/err"
  echo $? > "$work/rc"
}
jrun list --mirror "$mirror"
check "list --json" rc 0
check "list --json: the kind" says '"kind": "list"'
jrun fetch 9.99 --mirror "$mirror"
check "fetch --json" rc 0
check "fetch --json: from the cache" says '"from_cache": true'
jrun fetch 9.97 --mirror "$mirror"
check "fetch --json of an unknown version" rc 2
check "fetch --json: one error" says '"code": "no-release"'
jrun 9.99 --yes --no-verify "${install_args[@]}" --mirror "$mirror"
check "install --json again" rc 0
check "install --json: already installed" says '"result": "already_installed"'
jrun uninstall --yes
check "uninstall --json" rc 0
check "uninstall --json: undone" says '"operation": "install"'
rm -f "$cache/$a999"
jrun 9.99 --dry-run --mirror "$mirror"
check "dry run --json of an archive not downloaded" rc 0
check "dry run --json: the release, no plan yet" says '"plan": null'

# The real cuDNN, downloaded, installed, verified and rolled back: tests/fetch_real_e2e.sh.

finish
