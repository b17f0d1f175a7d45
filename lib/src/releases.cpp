#include "cudnn_install/releases.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <tuple>

namespace cudnn_install {
namespace {

std::tuple<int, int, int, int> key(const CudnnVersion& v) {
  return {v.major, v.minor, v.patch.value_or(0), v.build.value_or(0)};
}

// A release from an archive name of the redist eras; nullopt for other names (samples, cudnn_jit,
// the legacy names that were never in the redist directory).
std::optional<Release> release_from_name(const std::string& file_name) {
  auto name = parse_archive_name(file_name);
  if (!name || name->era == NameEra::Legacy) return std::nullopt;
  Release r;
  r.file_name = file_name;
  r.version = name->version;
  r.version_text = name->version_text;
  r.platform = canonical_platform(name->platform);
  r.cuda_major = name->cuda.major;
  r.cuda_tag = name->cuda.text;
  r.relative_path = "cudnn/" + name->platform + "/" + file_name;
  return r;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// "linux-x86_64: CUDA 12, CUDA 13; windows-x86_64: ..." for the releases of a version.
std::string what_exists(const std::vector<Release>& releases) {
  std::map<std::string, std::set<std::string>> per_platform;
  for (const auto& r : releases) per_platform[r.platform].insert("CUDA " + r.cuda_tag);
  std::vector<std::string> lines;
  lines.reserve(per_platform.size());
  for (const auto& [platform, tags] : per_platform)
    lines.push_back(platform + ": " + join(std::vector<std::string>(tags.begin(), tags.end()), ", "));
  return join(lines, "; ");
}

std::string versions_of(const std::vector<Release>& releases, int major) {
  std::vector<std::string> versions;
  for (const auto& r : releases)
    if (r.version.major == major && std::find(versions.begin(), versions.end(), r.version_text) == versions.end())
      versions.push_back(r.version_text);
  return join(versions, ", ");
}

}  // namespace

bool newer(const CudnnVersion& a, const CudnnVersion& b) { return key(a) > key(b); }

bool VersionQuery::matches(const CudnnVersion& v) const {
  const std::optional<int> have[] = {v.major, v.minor, v.patch, v.build};
  for (size_t i = 0; i < parts.size(); ++i)
    if (i >= 4 || have[i].value_or(0) != parts[i]) return false;
  return true;
}

bool looks_like_version(std::string_view text) {
  return !text.empty() && std::isdigit(static_cast<unsigned char>(text.front())) &&
         text.find_first_not_of("0123456789.") == std::string_view::npos;
}

Result<VersionQuery> parse_version_query(std::string_view text) {
  VersionQuery q;
  q.text = std::string(text);
  std::string_view rest = text;
  while (looks_like_version(text) && !rest.empty() && q.parts.size() < 4) {
    auto dot = rest.find('.');
    auto part = rest.substr(0, dot);
    int value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size()) break;
    q.parts.push_back(value);
    if (dot == std::string_view::npos) return q;
    rest.remove_prefix(dot + 1);
  }
  return fail(ErrorCode::Usage, "'" + std::string(text) +
                                    "' is not a cuDNN version: give 9, 9.19, 9.19.0 or 9.19.0.56 (or an archive path)");
}

std::string canonical_platform(std::string_view platform) {
  if (platform == "windows10-x64" || platform == "windows-x64") return "windows-x86_64";
  if (platform == "linux-x64") return "linux-x86_64";
  if (platform == "linux-aarch64sbsa") return "linux-sbsa";
  return std::string(platform);
}

std::string host_platform() {
#if defined(_WIN32)
  return "windows-x86_64";
#elif defined(__aarch64__)
  return "linux-sbsa";
#else
  return "linux-x86_64";
#endif
}

std::vector<Release> table_releases() {
  std::vector<Release> releases;
  for (const auto& known : known_archives()) {
    auto r = release_from_name(known.file_name);
    if (!r) continue;
    r->sha256 = known.sha256;
    r->size = known.size;
    r->source = "the built-in table";
    releases.push_back(std::move(*r));
  }
  return releases;
}

std::vector<std::string> merge_manifest(std::vector<Release>& releases, const std::vector<ManifestEntry>& entries,
                                        const std::string& source) {
  std::vector<std::string> notes;
  for (const auto& e : entries) {
    if (!e.relative_path.starts_with("cudnn/")) continue;  // samples, cudnn_jit
    auto have =
        std::find_if(releases.begin(), releases.end(), [&](const Release& r) { return r.file_name == e.file_name; });
    if (have != releases.end()) {
      if (have->sha256 != e.sha256 || (have->size && e.size && have->size != e.size))
        notes.push_back(source + " gives " + e.file_name + " another sha256 or size than " + have->source +
                        "; the known values are kept");
      else if (!have->size)
        have->size = e.size;
      continue;
    }
    auto r = release_from_name(e.file_name);
    if (!r || e.sha256.size() != 64) continue;
    r->relative_path = e.relative_path;
    r->sha256 = e.sha256;
    r->size = e.size;
    r->source = source;
    releases.push_back(std::move(*r));
  }
  return notes;
}

std::vector<Release> select_releases(const std::vector<Release>& releases, const ReleaseFilter& filter) {
  std::vector<Release> out;
  for (const auto& r : releases)
    if ((!filter.version || filter.version->matches(r.version)) &&
        (filter.platform.empty() || r.platform == filter.platform) &&
        (!filter.cuda_major || r.cuda_major == *filter.cuda_major))
      out.push_back(r);
  std::stable_sort(out.begin(), out.end(), [](const Release& a, const Release& b) {
    if (key(a.version) != key(b.version)) return newer(a.version, b.version);
    return std::tie(a.platform, a.cuda_tag) < std::tie(b.platform, b.cuda_tag);
  });
  return out;
}

Result<Release> resolve_release(const std::vector<Release>& releases, const VersionQuery& version,
                                const std::string& platform, int cuda_major) {
  auto fits = select_releases(releases, {version, platform, cuda_major});
  if (!fits.empty()) return fits.front();
  auto same_version = select_releases(releases, {version, "", std::nullopt});
  if (same_version.empty()) {
    auto major = version.parts.empty() ? 0 : version.parts.front();
    auto known = versions_of(select_releases(releases, {}), major);
    return fail(
        ErrorCode::NoRelease,
        "cuDNN " + version.text + " is not a release this tool knows of" +
            (known.empty() ? std::string(".") : ". Known " + std::to_string(major) + ".x releases: " + known + ".") +
            " Run 'cudnn-install list' to see what exists for your toolkit.");
  }
  return fail(ErrorCode::NoRelease,
              "cuDNN " + version.text + " has no archive for CUDA " + std::to_string(cuda_major) + " on " + platform +
                  ". It exists for " + what_exists(same_version) +
                  ". Install a toolkit of a CUDA major it supports, or pick another version (cudnn-install list).");
}

}  // namespace cudnn_install
