// The release catalog (table + manifests through the mirror, cached) and fetch_release.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/fetch.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {
namespace {

namespace fs = std::filesystem;

// Written beside the file it describes, then renamed, so a reader never sees half of either.
Result<void> write_file_atomically(const fs::path& path, const std::string& text) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  auto temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return fail(ErrorCode::Io, "cannot write " + temporary.string() + " (is the disk full?)");
  }
  fs::rename(temporary, path, ec);
  if (ec) return fail(ErrorCode::Io, "cannot write " + path.string() + ": " + ec.message(), path.string());
  return {};
}

fs::path meta_of(const fs::path& file) {
  auto meta = file;
  meta += ".meta";
  return meta;
}

std::string human_size(std::uint64_t bytes) {
  if (!bytes) return "size unknown";
  return std::to_string((bytes + 500'000) / 1'000'000) + " MB";
}

// "9.19.0" in redistrib_9.19.0.json as a version (no build).
std::optional<CudnnVersion> manifest_release(const std::string& text) {
  auto parsed = parse_version_query(text);
  if (!parsed) return std::nullopt;
  CudnnVersion v;
  const auto& p = parsed->parts;
  v.major = p[0];
  v.minor = p.size() > 1 ? p[1] : 0;
  if (p.size() > 2) v.patch = p[2];
  return v;
}

// The manifest that answers a version names what the mirror serves of that release and of any
// newer one: the table's archives of those it does not list (NVIDIA's newer build, which a local
// mirror lacks) would only end in a 404. Older releases stay: their manifests were not read.
void keep_served(std::vector<Release>& releases, const VersionQuery& query, const CudnnVersion& manifest,
                 const std::vector<ManifestEntry>& served) {
  std::erase_if(releases, [&](const Release& r) {
    bool listed = std::any_of(served.begin(), served.end(), [&](const auto& e) { return e.file_name == r.file_name; });
    bool older = !r.version.same_release(manifest) && newer(manifest, r.version);
    return query.matches(r.version) && !listed && !older;
  });
}

// Manifests to read for a version: those it matches, newest first; without a version, those of
// releases the table lacks. Each with the release it is of.
std::vector<std::pair<CudnnVersion, std::string>> manifests_to_read(const std::vector<std::string>& versions,
                                                                    const std::optional<VersionQuery>& query,
                                                                    const std::vector<Release>& table) {
  std::vector<std::pair<CudnnVersion, std::string>> chosen;
  for (const auto& text : versions) {
    auto release = manifest_release(text);
    if (!release) continue;
    const auto& v = *release;
    if (query && !query->matches(v)) continue;
    bool in_table =
        std::any_of(table.begin(), table.end(), [&](const Release& r) { return v.same_release(r.version); });
    if (!query && in_table) continue;
    chosen.emplace_back(v, text);
  }
  std::sort(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return newer(a.first, b.first); });
  return chosen;
}

// A release not found may be one the mirror would have named: why its manifests were not read
// (a 407 from a proxy, a 404) belongs to the refusal, and a mirror not read makes it a network error.
Error with_catalog_notes(Error error, const Catalog& catalog) {
  for (const auto& note : catalog.notes) error.message += "\n  (" + note + ")";
  if (catalog.mirror_unread && error.code == ErrorCode::NoRelease) error.code = ErrorCode::Network;
  return error;
}

}  // namespace

Result<std::string> choose_mirror(const std::optional<std::string>& flag) {
  std::string mirror = flag ? *flag : environment_variable("CUDNN_INSTALL_MIRROR").value_or(kNvidiaRedist);
  auto separator = mirror.find("://");
  std::string scheme = separator == std::string::npos ? "" : mirror.substr(0, separator + 3);
  std::transform(scheme.begin(), scheme.end(), scheme.begin(), [](unsigned char c) { return std::tolower(c); });
  // libcurl and WinHTTP would each refuse a path in their own words, after the table was already
  // chosen from; the user who gave a folder needs to hear what a mirror is.
  if (scheme != "http://" && scheme != "https://")
    return fail(ErrorCode::Usage,
                "the mirror '" + mirror + "' (" + (flag ? "--mirror" : "CUDNN_INSTALL_MIRROR") +
                    ") is not an http:// or https:// address. A mirror is a copy of NVIDIA's redist directory "
                    "served over http(s), e.g. `python3 -m http.server 8000` in that folder and --mirror "
                    "http://host:8000/; an archive already on this machine installs by its path: "
                    "cudnn-install <archive>",
                mirror);
  if (!mirror.ends_with('/')) mirror += '/';
  return mirror;
}

fs::path default_cache_dir() {
  if (auto chosen = environment_variable("CUDNN_INSTALL_CACHE")) return utf8_path(*chosen);
#ifdef _WIN32
  if (auto local = environment_variable("LOCALAPPDATA")) return utf8_path(*local) / "cudnn-install" / "cache";
  return fs::temp_directory_path() / "cudnn-install" / "cache";
#else
  if (auto xdg = environment_variable("XDG_CACHE_HOME")) return utf8_path(*xdg) / "cudnn-install";
  if (auto home = environment_variable("HOME")) return utf8_path(*home) / ".cache" / "cudnn-install";
  return fs::temp_directory_path() / "cudnn-install";
#endif
}

Result<CachedText> get_cached_text(HttpClient& http, const std::string& url, const fs::path& cache_file,
                                   CacheWrites writes) {
  auto cached = util::read_text_file(cache_file);
  HttpRequest request{url, 0, "", ""};
  if (cached)
    if (auto meta = nlohmann::json::parse(util::read_text_file(meta_of(cache_file)).value_or(""), nullptr, false);
        meta.is_object() && meta.value("url", "") == url) {
      request.if_none_match = meta.value("etag", "");
      request.if_modified_since = meta.value("last_modified", "");
    }
  std::string body;
  auto response = http.get(request, [&](int, std::span<const char> bytes) -> Result<void> {
    body.append(bytes.data(), bytes.size());
    return {};
  });
  if (!response) {
    if (cached && response.error().code == ErrorCode::Network) return CachedText{*cached, true};
    return std::unexpected(response.error());
  }
  if (response->status == 304 && cached) return CachedText{*cached, false};
  if (response->status != 200) return fail(ErrorCode::Network, http_failure(response->status, url), url);
  if (writes == CacheWrites::None) return CachedText{body, false};
  nlohmann::json meta = {{"url", url}, {"etag", response->etag}, {"last_modified", response->last_modified}};
  TRY(write_file_atomically(cache_file, body));
  TRY(write_file_atomically(meta_of(cache_file), meta.dump()));
  return CachedText{body, false};
}

std::vector<std::string> manifest_versions(const std::string& index_html) {
  static const std::regex link(R"(redistrib_([0-9]+(?:\.[0-9]+)*)\.json)");
  std::set<std::string> seen;
  std::vector<std::string> versions;
  for (auto it = std::sregex_iterator(index_html.begin(), index_html.end(), link); it != std::sregex_iterator(); ++it)
    if (seen.insert((*it)[1].str()).second) versions.push_back((*it)[1].str());
  return versions;
}

Catalog load_catalog(HttpClient& http, const CatalogRequest& request) {
  Catalog catalog{table_releases(), {}};
  auto table = catalog.releases;
  auto manifests_dir = request.cache_dir / "manifests";
  auto index = get_cached_text(http, request.mirror, manifests_dir / "index.html", request.writes);
  if (!index) {
    catalog.notes.push_back(index.error().message + "; releases come from the built-in table only");
    catalog.mirror_unread = true;
    return catalog;
  }
  if (index->offline)
    catalog.notes.push_back("the mirror " + request.mirror + " cannot be reached: cached manifests are used");
  for (const auto& [release, version] : manifests_to_read(manifest_versions(index->text), request.version, table)) {
    auto name = "redistrib_" + version + ".json";
    auto text = get_cached_text(http, request.mirror + name, manifests_dir / name, request.writes);
    if (!text) {
      catalog.notes.push_back(text.error().message + "; " + name + " is left out");
      continue;
    }
    auto entries = parse_manifest(text->text);
    if (!entries) {
      catalog.notes.push_back(name + " from " + request.mirror + ": " + entries.error().message);
      continue;
    }
    auto notes = merge_manifest(catalog.releases, *entries, name);
    catalog.notes.insert(catalog.notes.end(), notes.begin(), notes.end());
    if (request.version) {  // the newest manifest of the version answers
      keep_served(catalog.releases, *request.version, release, *entries);
      break;
    }
  }
  return catalog;
}

Result<Fetched> fetch_release(HttpClient& http, const FetchRequest& request,
                              const std::function<void(const Fetched&)>& on_choice, const DownloadProgress& progress) {
  auto catalog = load_catalog(http, {request.mirror, request.cache_dir, request.version});
  Fetched fetched;
  fetched.notes = catalog.notes;
  auto release = resolve_release(catalog.releases, request.version, request.platform, request.cuda_major);
  if (!release) return std::unexpected(with_catalog_notes(release.error(), catalog));
  fetched.release = *release;
  const auto& r = fetched.release;
  fetched.why = request.cuda_text + " \u2192 " + r.file_name + ", " + human_size(r.size);
  if (on_choice) on_choice(fetched);
  DownloadRequest download{request.mirror + r.relative_path, request.cache_dir / r.file_name, r.sha256, r.size};
  TRY_ASSIGN(fetched.download, download_verified(http, download, progress));
  fetched.archive = download.destination;
  if (request.output_dir) {
    std::error_code ec;
    fs::create_directories(*request.output_dir, ec);
    auto copy = *request.output_dir / r.file_name;
    if (!fs::equivalent(copy, download.destination, ec)) {
      fs::remove(copy, ec);
      fs::create_hard_link(download.destination, copy, ec);
      if (ec) fs::copy_file(download.destination, copy, fs::copy_options::overwrite_existing, ec);
      if (ec)
        return fail(ErrorCode::Io, "cannot copy the archive to " + copy.string() + ": " + ec.message(), copy.string());
    }
    fetched.archive = copy;
  }
  return fetched;
}

}  // namespace cudnn_install
