// Stage 0: versions, the release table and manifests, resumable verified downloads, the cached
// manifests (a fake HTTP client here; tests/fetch_e2e.sh drives the real clients against a server).
#include <gtest/gtest.h>

#include "base/sha256.hpp"
#include "cudnn_install/fetch.hpp"
#include "cudnn_install/releases.hpp"
#include "http_proxy_name.hpp"
#include "support/fake_http.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

std::string sha256_of(const std::string& text) {
  Sha256 sha;
  sha.update(std::span<const char>(text.data(), text.size()));
  return sha.finish();
}

std::string bytes(std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>('a' + (i * 7919) % 26);
  return s;
}

VersionQuery query(const char* text) { return parse_version_query(text).value(); }

constexpr const char* kUrl = "http://127.0.0.1:1/cudnn/linux-x86_64/a.tar.xz";

}  // namespace

TEST(FetchVersion, ParsesPrefixesOfAVersion) {
  EXPECT_EQ(query("9").parts, (std::vector<int>{9}));
  EXPECT_EQ(query("9.19.0.56").parts, (std::vector<int>{9, 19, 0, 56}));
  for (const char* bad : {"", "9.", ".9", "9..1", "9.x", "v9", "1.2.3.4.5", "./9.19"})
    EXPECT_FALSE(parse_version_query(bad)) << bad;
  CudnnVersion v{9, 19, 0, 56};
  EXPECT_TRUE(query("9").matches(v));
  EXPECT_TRUE(query("9.19.0").matches(v));
  EXPECT_FALSE(query("9.1").matches(v));
  EXPECT_FALSE(query("9.19.0.57").matches(v));
  EXPECT_TRUE(looks_like_version("8.9"));
  EXPECT_FALSE(looks_like_version("cudnn-8.9.zip"));
}

TEST(FetchMirror, OnlyAnHttpOrHttpsAddressIsAMirror) {
  EXPECT_EQ(choose_mirror("http://127.0.0.1:8000/redist").value(), "http://127.0.0.1:8000/redist/");
  EXPECT_EQ(choose_mirror("HTTPS://mirror.example/redist/").value(), "HTTPS://mirror.example/redist/");
  for (const char* folder : {"/srv/redist", "C:\\mirror\\redist", "\\\\server\\redist", "file:///srv/redist",
                             "ftp://x/", "mirror.example/redist", ""}) {
    auto refused = choose_mirror(std::string(folder));
    ASSERT_FALSE(refused) << folder;
    EXPECT_EQ(refused.error().code, ErrorCode::Usage) << folder;
    EXPECT_NE(refused.error().message.find("(--mirror) is not an http:// or https:// address"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("cudnn-install <archive>"), std::string::npos);
  }
}

TEST(FetchReleases, TheTableGivesTheRedistArchivesOnly) {
  auto releases = table_releases();
  EXPECT_GT(releases.size(), 250u);
  for (const auto& r : releases) {
    EXPECT_EQ(r.relative_path, "cudnn/" + r.platform + "/" + r.file_name) << r.file_name;
    EXPECT_FALSE(r.file_name.starts_with("cudnn-1")) << "a legacy name: " << r.file_name;
    EXPECT_EQ(r.sha256.size(), 64u);
  }
}

TEST(FetchReleases, ResolvesTheNewestForPlatformAndCudaMajor) {
  auto releases = table_releases();
  auto r = resolve_release(releases, query("9.10"), "linux-x86_64", 12);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->file_name, "cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz");
  auto w = resolve_release(releases, query("8.9.5.30"), "windows-x86_64", 12);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->file_name, "cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip");
  auto newest = resolve_release(releases, query("9"), "linux-x86_64", 13);
  ASSERT_TRUE(newest);
  for (const auto& other : select_releases(releases, {query("9"), "linux-x86_64", 13}))
    EXPECT_FALSE(newer(other.version, newest->version)) << other.file_name;
  EXPECT_EQ(newest->cuda_major, 13);
}

TEST(FetchReleases, UnknownVersionAndMissingVariantSayWhatExists) {
  auto releases = table_releases();
  auto unknown = resolve_release(releases, query("9.99"), "linux-x86_64", 12);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::NoRelease);
  EXPECT_NE(unknown.error().message.find("Known 9.x releases: "), std::string::npos) << unknown.error().message;
  auto no_cuda13 = resolve_release(releases, query("9.10.2"), "linux-x86_64", 13);
  ASSERT_FALSE(no_cuda13);
  EXPECT_NE(no_cuda13.error().message.find("no archive for CUDA 13 on linux-x86_64"), std::string::npos);
  EXPECT_NE(no_cuda13.error().message.find("linux-x86_64: CUDA 11, CUDA 12"), std::string::npos)
      << no_cuda13.error().message;
}

TEST(FetchReleases, AManifestAddsArchivesButNeverChangesAKnownOne) {
  auto releases = table_releases();
  auto known = resolve_release(releases, query("9.10.2"), "linux-x86_64", 12).value();
  std::vector<ManifestEntry> entries = {
      {"cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz",
       "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz", std::string(64, 'a'), 1234},
      {known.file_name, known.relative_path, std::string(64, 'b'), 99},
      {"cudnn_jit-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz",
       "cudnn_jit/linux-x86_64/cudnn_jit-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz", std::string(64, 'c'), 1}};
  auto notes = merge_manifest(releases, entries, "redistrib_9.99.0.json");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find(known.file_name), std::string::npos);
  auto added = resolve_release(releases, query("9"), "linux-x86_64", 13).value();
  EXPECT_EQ(added.file_name, "cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz");
  EXPECT_EQ(added.source, "redistrib_9.99.0.json");
  EXPECT_EQ(resolve_release(releases, query("9.10.2"), "linux-x86_64", 12)->sha256, known.sha256);
}

TEST(FetchDownload, DownloadsVerifiesAndKeepsTheFile) {
  TempDir dir;
  FakeHttp http;
  auto body = bytes(1000);
  http.files[kUrl] = {body};
  auto dest = dir.path() / "a.tar.xz";
  std::uint64_t last_progress = 0;
  auto got = download_verified(http, {kUrl, dest, sha256_of(body), body.size()},
                               [&](std::uint64_t done, std::uint64_t) { last_progress = done; });
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(read_file(dest), body);
  EXPECT_EQ(last_progress, 1000u);
  EXPECT_FALSE(fs::exists(dest.string() + ".part"));
  auto again = download_verified(http, {kUrl, dest, sha256_of(body), body.size()});
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(http.requests.size(), 1u) << "a cached archive is never downloaded again";
}

TEST(FetchDownload, ResumesAfterADroppedConnection) {
  TempDir dir;
  FakeHttp http;
  auto body = bytes(5000);
  http.files[kUrl] = {body};
  http.drop_after = {1234, 2000};
  auto dest = dir.path() / "a.tar.xz";
  auto got = download_verified(http, {kUrl, dest, sha256_of(body), body.size()});
  ASSERT_TRUE(got) << got.error().message;
  EXPECT_EQ(got->resumed, 2);
  ASSERT_EQ(http.requests.size(), 3u);
  EXPECT_EQ(http.requests[1].range_from, 1234u);
  EXPECT_EQ(http.requests[2].range_from, 3234u);
  EXPECT_EQ(read_file(dest), body);
}

TEST(FetchDownload, ResumesThePartOfAnEarlierRunAndRestartsWhenRangeIsIgnored) {
  TempDir dir;
  FakeHttp http;
  auto body = bytes(3000);
  http.files[kUrl] = {body};
  auto dest = dir.path() / "a.tar.xz";
  write_file(dest.string() + ".part", body.substr(0, 1000));
  ASSERT_TRUE(download_verified(http, {kUrl, dest, sha256_of(body), body.size()}));
  EXPECT_EQ(http.requests.at(0).range_from, 1000u);
  EXPECT_EQ(read_file(dest), body);

  fs::remove(dest);
  write_file(dest.string() + ".part", body.substr(0, 1000));
  http.ignore_range = true;  // answers 200 with the whole file
  ASSERT_TRUE(download_verified(http, {kUrl, dest, sha256_of(body), body.size()}));
  EXPECT_EQ(read_file(dest), body);
}

TEST(FetchDownload, RefusesWrongBytesATruncatedFileA404AndAnUnreachableMirror) {
  TempDir dir;
  FakeHttp http;
  auto body = bytes(2000);
  auto dest = dir.path() / "a.tar.xz";
  http.files[kUrl] = {bytes(1999) + "!"};
  auto wrong = download_verified(http, {kUrl, dest, sha256_of(body), body.size()});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::IntegrityFailure);
  EXPECT_NE(wrong.error().message.find("the mirror serves other bytes"), std::string::npos);
  EXPECT_FALSE(fs::exists(dest));
  EXPECT_FALSE(fs::exists(dest.string() + ".part"));

  http.files[kUrl] = {body.substr(0, 1500)};
  auto truncated = download_verified(http, {kUrl, dest, sha256_of(body), body.size()});
  ASSERT_FALSE(truncated);
  EXPECT_NE(truncated.error().message.find("truncated: 1500 of 2000 bytes"), std::string::npos);
  EXPECT_FALSE(fs::exists(dest));

  http.files.clear();
  auto missing = download_verified(http, {kUrl, dest, sha256_of(body), body.size()});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::Network);
  EXPECT_NE(missing.error().message.find("HTTP 404"), std::string::npos);
  EXPECT_FALSE(fs::exists(dest.string() + ".part"));  // nothing came: no empty .part is kept

  http.unreachable = true;
  auto offline = download_verified(http, {kUrl, dest, sha256_of(body), body.size(), 3});
  ASSERT_FALSE(offline);
  EXPECT_EQ(offline.error().code, ErrorCode::Network);
  EXPECT_FALSE(fs::exists(dest));
  EXPECT_FALSE(fs::exists(dest.string() + ".part"));
  EXPECT_EQ(offline.error().message.find("bytes are kept"), std::string::npos);
}

TEST(FetchDownload, ADamagedCachedFileIsDownloadedAgain) {
  TempDir dir;
  FakeHttp http;
  auto body = bytes(800);
  http.files[kUrl] = {body};
  auto dest = dir.path() / "a.tar.xz";
  write_file(dest, bytes(799) + "?");
  auto got = download_verified(http, {kUrl, dest, sha256_of(body), body.size()});
  ASSERT_TRUE(got);
  EXPECT_FALSE(got->from_cache);
  EXPECT_EQ(read_file(dest), body);
}

TEST(FetchCatalog, ManifestsAreCachedWithTheirETagAndServeOffline) {
  TempDir dir;
  FakeHttp http;
  const std::string mirror = "http://127.0.0.1:1/redist/";
  auto archive = bytes(100);
  http.files[mirror] = {R"(<a href="redistrib_9.10.2.json">x</a> <a href="redistrib_9.99.0.json">y</a>)", "\"i1\""};
  http.files[mirror + "redistrib_9.99.0.json"] = {
      R"({"cudnn": {"linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz", "sha256": ")" +
          sha256_of(archive) + R"(", "size": "100"}}}})",
      "\"m1\""};
  http.files[mirror + "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz"] = {archive};
  EXPECT_EQ(manifest_versions(http.files[mirror].body), (std::vector<std::string>{"9.10.2", "9.99.0"}));

  FetchRequest request{query("9"), "linux-x86_64", 13, "CUDA 13.0 toolkit", mirror, dir.path() / "cache", {}};
  auto fetched = fetch_release(http, request);
  ASSERT_TRUE(fetched) << fetched.error().message;
  EXPECT_EQ(fetched->release.file_name, "cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz");
  EXPECT_EQ(fetched->why, "CUDA 13.0 toolkit \u2192 cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz, 0 MB");
  EXPECT_EQ(read_file(fetched->archive), archive);

  http.requests.clear();
  ASSERT_TRUE(fetch_release(http, request));
  ASSERT_EQ(http.requests.size(), 2u) << "the index and the manifest, no archive";
  EXPECT_EQ(http.requests[0].if_none_match, "\"i1\"");
  EXPECT_EQ(http.requests[1].if_none_match, "\"m1\"");

  http.unreachable = true;
  auto offline = fetch_release(http, request);
  ASSERT_TRUE(offline) << offline.error().message;
  EXPECT_TRUE(offline->download.from_cache);
  ASSERT_FALSE(offline->notes.empty());
  EXPECT_NE(offline->notes[0].find("cannot be reached"), std::string::npos);

  TempDir empty_cache;
  request.cache_dir = empty_cache.path();
  request.version = query("9.10");
  request.cuda_major = 12;
  http.requests.clear();
  auto table_only = fetch_release(http, request);  // resolved from the table, then the download fails
  ASSERT_FALSE(table_only);
  EXPECT_EQ(table_only.error().code, ErrorCode::Network);
  EXPECT_EQ(http.requests.back().url, mirror + "cudnn/linux-x86_64/cudnn-linux-x86_64-9.10.2.21_cuda12-archive.tar.xz");
}

TEST(FetchCatalog, AVersionNotFoundWhileTheMirrorWasUnreadSaysWhyAndIsANetworkError) {
  TempDir dir;
  FakeHttp http;
  const std::string mirror = "http://mirror.invalid/";
  http.files[mirror] = {"", ""};
  http.files[mirror].status = 407;  // a proxy that wants credentials
  FetchRequest request{query("9.99"), "linux-x86_64", 13, "CUDA 13.0 toolkit", mirror, dir.path() / "cache", {}};
  auto refused = fetch_release(http, request);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Network) << "the release may be on the mirror: not a NoRelease";
  EXPECT_NE(refused.error().message.find("HTTP 407 for " + mirror), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("USER:PASSWORD@HOST:PORT"), std::string::npos) << refused.error().message;

  http.files[mirror] = {"<html>no manifests</html>", ""};  // read, and it has none: the table answers
  auto unknown = fetch_release(http, request);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::NoRelease);
}

TEST(FetchCatalog, ADryRunsCatalogWritesNothingToTheCache) {
  TempDir dir;
  FakeHttp http;
  const std::string mirror = "http://127.0.0.1:1/redist/";
  http.files[mirror] = {R"(<a href="redistrib_9.99.0.json">y</a>)", "\"i1\""};
  http.files[mirror + "redistrib_9.99.0.json"] = {
      R"({"cudnn": {"linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz", "sha256": ")" +
          std::string(64, 'a') + R"(", "size": "100"}}}})",
      "\"m1\""};
  auto cache = dir.path() / "cache";
  auto preview = load_catalog(http, {mirror, cache, query("9.99"), CacheWrites::None});
  auto found = resolve_release(preview.releases, query("9.99"), "linux-x86_64", 13);
  ASSERT_TRUE(found) << found.error().message;
  EXPECT_EQ(found->file_name, "cudnn-linux-x86_64-9.99.0.1_cuda13-archive.tar.xz");
  EXPECT_FALSE(fs::exists(cache)) << "a preview leaves the cache as it was";

  load_catalog(http, {mirror, cache, query("9.99")});
  EXPECT_TRUE(fs::exists(cache / "manifests" / "redistrib_9.99.0.json")) << "a real run keeps what it read";
}

TEST(FetchCatalog, AVersionResolvesToWhatTheMirrorsNewestManifestOfItServes) {
  TempDir dir;
  FakeHttp http;
  const std::string mirror = "http://127.0.0.1:1/redist/";
  const std::string ours = "cudnn-linux-x86_64-9.19.0.99_cuda13-archive.tar.xz";
  http.files[mirror] = {R"(<a href="redistrib_9.19.0.json">y</a>)", "\"i1\""};
  http.files[mirror + "redistrib_9.19.0.json"] = {
      R"({"cudnn": {"linux-x86_64": {"cuda13": {"relative_path": "cudnn/linux-x86_64/)" + ours + R"(", "sha256": ")" +
          std::string(64, 'a') + R"(", "size": "100"}}}})",
      "\"m1\""};
  auto resolve = [&](const char* version, int cuda_major) {
    auto catalog = load_catalog(http, {mirror, dir.path() / "cache", query(version), CacheWrites::None});
    return resolve_release(catalog.releases, query(version), "linux-x86_64", cuda_major);
  };
  // The table's 9.19.1.2 (newer) and 9.19.0.56 (the same release) are not on this mirror.
  for (const char* version : {"9", "9.19", "9.19.0"}) {
    auto found = resolve(version, 13);
    ASSERT_TRUE(found) << version << ": " << found.error().message;
    EXPECT_EQ(found->file_name, ours) << version;
  }
  auto pinned = resolve("9.19.1", 13);  // no manifest of 9.19.1 here: the table answers
  ASSERT_TRUE(pinned) << pinned.error().message;
  EXPECT_EQ(pinned->file_name, "cudnn-linux-x86_64-9.19.1.2_cuda13-archive.tar.xz");
  auto older = resolve("9", 11);  // the manifest has no CUDA 11: an older release of the table's
  ASSERT_TRUE(older) << older.error().message;
  EXPECT_TRUE(older->version.major == 9 && older->version.minor < 19) << older->file_name;
  auto none = resolve("9.19", 12);  // 9.19.0 on this mirror has no CUDA 12 archive
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::NoRelease);
}

TEST(WinHttpProxyName, TheVariableAsAUrlBecomesHostAndPort) {
  EXPECT_EQ(winhttp_proxy("http://proxy.corp:3128").name, "proxy.corp:3128");
  EXPECT_EQ(winhttp_proxy("http://proxy.corp:3128/").name, "proxy.corp:3128");
  EXPECT_EQ(winhttp_proxy("HTTP://10.0.0.1:8080/path").name, "10.0.0.1:8080");
  EXPECT_EQ(winhttp_proxy("proxy.corp:3128").name, "proxy.corp:3128");
  EXPECT_EQ(winhttp_proxy("http=proxy.corp:3128").name, "http=proxy.corp:3128");  // WinHTTP's own form, kept
  EXPECT_EQ(winhttp_proxy("http:/").name, "http:");
  EXPECT_EQ(winhttp_proxy("").name, "");
  WinHttpProxy with_user = winhttp_proxy("http://build%40corp:p%3Ass@word@proxy.corp:3128/");
  EXPECT_EQ(with_user.name, "proxy.corp:3128");
  EXPECT_EQ(with_user.user, "build@corp");  // percent-decoded, as curl reads the same variable
  EXPECT_EQ(with_user.password, "p:ss@word");
  EXPECT_EQ(winhttp_proxy("alice@proxy:8080").user, "alice");
  EXPECT_EQ(winhttp_proxy("alice@proxy:8080").password, "");
  EXPECT_EQ(winhttp_proxy("http://proxy:8080").user, "");
  EXPECT_EQ(winhttp_proxy("http://a:%4@proxy").password, "%4");  // a cut escape is kept as written
}
