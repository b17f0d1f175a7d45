// Stage 0: a cuDNN version -> a verified archive in the cache. The releases come from NVIDIA's
// redistrib manifests (fetched through a mirror, cached with their ETag and Last-Modified) merged
// into the built-in table, which alone serves when the network does not; downloads resume, are
// hashed while they arrive and are kept in the cache, never downloaded twice.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/error.hpp"
#include "cudnn_install/http.hpp"
#include "cudnn_install/releases.hpp"

namespace cudnn_install {

// NVIDIA's public redist directory; a mirror is laid out the same way.
inline constexpr const char* kNvidiaRedist = "https://developer.download.nvidia.com/compute/cudnn/redist/";

// --mirror, else CUDNN_INSTALL_MIRROR, else NVIDIA's directory; always ending in '/'. A Usage error
// when the one chosen is no http:// or https:// address (a directory path, a share, file://).
Result<std::string> choose_mirror(const std::optional<std::string>& flag);
// CUDNN_INSTALL_CACHE when set; else $XDG_CACHE_HOME/cudnn-install (else ~/.cache/cudnn-install), or
// %LOCALAPPDATA%\cudnn-install\cache on Windows.
std::filesystem::path default_cache_dir();

// (bytes so far, bytes in all or 0 when unknown)
using DownloadProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

struct DownloadRequest {
  std::string url;
  std::filesystem::path destination;  // written as <destination>.part, renamed when verified
  std::string sha256;                 // expected, lower-case hex
  std::uint64_t size = 0;             // expected; 0: unknown
  int max_attempts = 20;              // connections, counting the ones that resume after a drop
};
struct Downloaded {
  std::uint64_t bytes = 0;
  bool from_cache = false;  // the destination was there and verified: nothing downloaded
  int resumed = 0;          // how many times the transfer went on from where it had stopped
};
// A verified file at destination, or an error with nothing there (wrong bytes are removed; a
// dropped transfer keeps its .part for the next run to resume).
Result<Downloaded> download_verified(HttpClient& http, const DownloadRequest& request,
                                     const DownloadProgress& progress = {});

// A small text (a manifest, the directory index), cached with its validators: a conditional GET
// that answers 304 costs no body, and no connection at all falls back to the cached copy.
struct CachedText {
  std::string text;
  bool offline = false;  // the mirror could not be reached: this is the cached copy
};
// Whether what the mirror answers is written to the cache: a dry run writes nothing.
enum class CacheWrites { Keep, None };
Result<CachedText> get_cached_text(HttpClient& http, const std::string& url, const std::filesystem::path& cache_file,
                                   CacheWrites writes = CacheWrites::Keep);

// Every redistrib_<version>.json a directory listing links to, as version texts ("9.19.0").
std::vector<std::string> manifest_versions(const std::string& index_html);

struct CatalogRequest {
  std::string mirror;  // from choose_mirror
  std::filesystem::path cache_dir;
  std::optional<VersionQuery> version;  // which manifests to read; none: all the table lacks
  CacheWrites writes = CacheWrites::Keep;
};
struct Catalog {
  std::vector<Release> releases;
  std::vector<std::string> notes;  // offline fallback, manifests that disagreed with the table
  bool mirror_unread = false;      // its listing could not be read, nor was one cached (a 407, no network)
};
// The built-in table plus the mirror's manifests for the version asked (never an error: without
// the network the table, and manifests cached before, serve). The newest manifest of the version
// answers for its release and newer ones: the table's archives of those that it does not list are
// left out, since the mirror does not serve them.
Catalog load_catalog(HttpClient& http, const CatalogRequest& request);

struct FetchRequest {
  VersionQuery version;
  std::string platform;  // canonical (host_platform() by default)
  int cuda_major = 0;
  std::string cuda_text;  // what decided the CUDA major, for the explanation: "CUDA 12.3 toolkit"
  std::string mirror;
  std::filesystem::path cache_dir;
  std::optional<std::filesystem::path> output_dir;  // -o: a copy of the archive there too
};
struct Fetched {
  Release release;
  std::string why;                // "CUDA 12.3 toolkit -> cudnn-...-archive.zip, 640 MB"
  std::filesystem::path archive;  // in the cache, or in output_dir
  Downloaded download;
  std::vector<std::string> notes;
};
// Resolves the version and downloads its archive; `on_choice` sees the choice before the download.
Result<Fetched> fetch_release(HttpClient& http, const FetchRequest& request,
                              const std::function<void(const Fetched&)>& on_choice = {},
                              const DownloadProgress& progress = {});

}  // namespace cudnn_install
