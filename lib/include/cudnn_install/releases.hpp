// Stage 0a: which cuDNN archive a version means. The releases come from the built-in table of known
// archives and from NVIDIA's redistrib_<version>.json manifests; resolving is pure (no I/O).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install {

struct Release {
  std::string file_name;
  CudnnVersion version;
  std::string version_text;  // "9.19.0.56"
  std::string platform;      // canonical: linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64, ...
  int cuda_major = 0;
  std::string cuda_tag;       // as in the name: "12", "11.5"
  std::string relative_path;  // under the redist directory: "cudnn/<platform>/<file name>"
  std::string sha256;
  std::uint64_t size = 0;  // 0 when no source gave one
  std::string source;      // "the built-in table", "redistrib_9.19.0.json"
};

// What the user typed: "9", "9.19", "9.19.0" or "9.19.0.56"; a prefix of the release's version.
struct VersionQuery {
  std::vector<int> parts;
  std::string text;
  bool matches(const CudnnVersion& version) const;
};
Result<VersionQuery> parse_version_query(std::string_view text);
// Digits and dots only: a version, not an archive path.
bool looks_like_version(std::string_view text);

// The redist directory's platform names; older spellings map to them (windows10-x64 ->
// windows-x86_64, linux-x64 -> linux-x86_64, linux-aarch64sbsa -> linux-sbsa).
std::string canonical_platform(std::string_view platform);
// The platform this build runs on: windows-x86_64, linux-x86_64 or linux-sbsa.
std::string host_platform();

// The downloadable rows of the built-in table: those named like NVIDIA's redist archives (8.3 on);
// older archives were never in the redist directory.
std::vector<Release> table_releases();
// Adds the manifest's cuDNN archives that `releases` lacks. An archive already there keeps its
// sha256 and size: a manifest can add archives, never change a known one. Returns one note per
// archive whose manifest values disagreed (and were ignored).
std::vector<std::string> merge_manifest(std::vector<Release>& releases, const std::vector<ManifestEntry>& entries,
                                        const std::string& source);

struct ReleaseFilter {
  std::optional<VersionQuery> version;  // none: every version
  std::string platform;                 // empty: every platform
  std::optional<int> cuda_major;        // none: every CUDA major
};
// The releases that pass, newest first (then by platform and CUDA tag).
std::vector<Release> select_releases(const std::vector<Release>& releases, const ReleaseFilter& filter);
// The newest release for the version, platform and CUDA major; a NoRelease error that lists what
// exists otherwise (the versions near the one asked for, or what this version has).
Result<Release> resolve_release(const std::vector<Release>& releases, const VersionQuery& version,
                                const std::string& platform, int cuda_major);

// Newer first: by major, minor, patch, build (a missing part counts as 0).
bool newer(const CudnnVersion& a, const CudnnVersion& b);

}  // namespace cudnn_install
