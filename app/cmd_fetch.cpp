// `cudnn-install fetch VERSION`, `cudnn-install list` and `cudnn-install VERSION`: the release is
// resolved for a CUDA major (the detected toolkit's, or --cuda) and a platform (this machine's, or
// --platform), downloaded into the cache and verified; an install then goes on as for an archive path.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "cudnn_install/fetch.hpp"
#include "cudnn_install/report.hpp"
#include "cudnn_install/verify.hpp"
#include "progress.hpp"

namespace cudnn_install::cli {
namespace {

constexpr const char* kPlatforms[] = {"linux-x86_64",   "linux-sbsa",    "linux-aarch64",
                                      "windows-x86_64", "windows-arm64", "linux-ppc64le"};

// The CUDA major and the words that say where it came from.
struct CudaChoice {
  int major = 0;
  std::string why;                 // "CUDA 12.3 toolkit", "--cuda 12"
  std::optional<Toolkit> toolkit;  // when one was detected
};

Result<CudaChoice> cuda_choice(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (o.cuda) {
    CudaChoice c{*o.cuda, "--cuda " + std::to_string(*o.cuda), std::nullopt};
    if (toolkit) c.toolkit = *toolkit;
    return c;
  }
  if (!toolkit)
    return fail(toolkit.error().code,
                toolkit.error().message + " (or pass --cuda N to name the CUDA major without a toolkit)");
  return CudaChoice{toolkit->version.major,
                    fmt::format("CUDA {}.{} toolkit", toolkit->version.major, toolkit->version.minor), *toolkit};
}

Result<std::string> platform_choice(const Options& o) {
  if (!o.platform) return host_platform();
  auto platform = canonical_platform(*o.platform);
  for (const char* known : kPlatforms)
    if (platform == known) return platform;
  return fail(ErrorCode::Usage, "unknown platform '" + *o.platform +
                                    "': give linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64 or windows-arm64");
}

Result<FetchRequest> fetch_request(const Options& o, const std::string& version_text, const CudaChoice& cuda) {
  auto version = parse_version_query(version_text);
  if (!version) return std::unexpected(version.error());
  auto platform = platform_choice(o);
  if (!platform) return std::unexpected(platform.error());
  auto mirror = choose_mirror(o.mirror);
  if (!mirror) return std::unexpected(mirror.error());
  return FetchRequest{*version, *platform, cuda.major, cuda.why, *mirror, default_cache_dir(), o.output_dir};
}

void warn_notes(const std::vector<std::string>& notes) {
  for (const auto& note : notes) spdlog::warn("{}", note);
}

bool text(const Options& o) { return o.format == Format::Text && o.verbosity != Verbosity::Quiet; }

void print_choice(const Fetched& f, const Options& o) {
  warn_notes(f.notes);
  if (text(o)) std::cout << f.why << "  (from " << f.release.source << ")\n";
}

Result<Fetched> fetch_with_progress(const FetchRequest& request, const Options& o) {
  auto http = make_http_client();
  auto progress = percent_line(o, "downloading", 1 << 20);
  auto fetched = fetch_release(
      *http, request, [&](const Fetched& f) { print_choice(f, o); }, progress);
  if (fetched && text(o))
    std::cout << (fetched->download.from_cache ? "in the cache: " : "downloaded: ") << fetched->archive.string()
              << " (sha256 and size verified against " << fetched->release.source << ")\n";
  return fetched;
}

nlohmann::json release_json(const Release& r) {
  return {{"version", r.version_text}, {"file", r.file_name}, {"platform", r.platform}, {"cuda", r.cuda_tag},
          {"sha256", r.sha256},        {"size", r.size},      {"source", r.source},     {"path", r.relative_path}};
}

// Where the manifest that gave a release is cached, for the install's integrity check.
std::optional<std::filesystem::path> manifest_of(const Release& r, const FetchRequest& request) {
  if (!r.source.starts_with("redistrib_")) return std::nullopt;
  return request.cache_dir / "manifests" / r.source;
}

}  // namespace

int cmd_fetch(const Options& o) {
  auto cuda = cuda_choice(o);
  if (!cuda) return report_error(cuda.error(), o);
  auto request = fetch_request(o, o.version, *cuda);
  if (!request) return report_error(request.error(), o);
  auto fetched = fetch_with_progress(*request, o);
  if (!fetched) return report_error(fetched.error(), o);
  answer().merge({{"changed", !fetched->download.from_cache},
                  {"release", release_json(fetched->release)},
                  {"archive", fetched->archive.string()},
                  {"from_cache", fetched->download.from_cache},
                  {"resumed", fetched->download.resumed},
                  {"notes", fetched->notes}});
  return 0;
}

int cmd_list(const Options& o) {
  auto mirror = choose_mirror(o.mirror);  // a usage error, before the toolkit is looked for
  if (!mirror) return report_error(mirror.error(), o);
  auto cuda = cuda_choice(o);
  if (!cuda) return report_error(cuda.error(), o);
  auto platform = platform_choice(o);
  if (!platform) return report_error(platform.error(), o);
  auto http = make_http_client();
  auto catalog = load_catalog(*http, {*mirror, default_cache_dir(), std::nullopt});
  warn_notes(catalog.notes);
  auto releases = select_releases(catalog.releases, {std::nullopt, *platform, cuda->major});
  std::optional<CudnnVersion> installed;
  if (cuda->toolkit) installed = installed_cudnn_version(*cuda->toolkit);
  auto is_installed = [&](const Release& r) { return installed && installed->same_release(r.version); };
  std::string installed_in = cuda->toolkit ? "              (installed in " + cuda->toolkit->root.string() + ")\n" : "";
  if (o.format == Format::Json) {
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : releases) {
      auto j = release_json(r);
      j["installed"] = is_installed(r);
      all.push_back(j);
    }
    answer().merge({{"platform", *platform}, {"cuda_major", cuda->major}, {"releases", all}});
    return 0;
  }
  std::cout << fmt::format("cuDNN releases for {} on {} ({} archives; newest first)\n", cuda->why, *platform,
                           releases.size());
  for (const auto& r : releases)
    std::cout << fmt::format("{} {:<11} {:<58} {:>8}  {}\n", is_installed(r) ? "*" : " ", r.version_text, r.file_name,
                             r.size ? fmt::format("{} MB", (r.size + 500'000) / 1'000'000) : "?", r.source)
              << (is_installed(r) ? installed_in : "");
  if (releases.empty()) std::cout << "none: try another --cuda or --platform\n";
  return 0;
}

int cmd_install_version(Options o) {
  auto cuda = cuda_choice(o);
  if (!cuda) return report_error(cuda.error(), o);
  if (!cuda->toolkit)
    return report_error(Error{ErrorCode::NoToolkit, "no CUDA toolkit to install into: pass --cuda-root DIR", ""}, o);
  auto request = fetch_request(o, o.archive.string(), *cuda);
  if (!request) return report_error(request.error(), o);
  if (o.mode == Mode::DryRun) {  // writes nothing, the cache included: an archive not there yet is only named
    auto http = make_http_client();
    auto catalog = load_catalog(*http, {request->mirror, request->cache_dir, request->version, CacheWrites::None});
    warn_notes(catalog.notes);
    auto release = resolve_release(catalog.releases, request->version, request->platform, request->cuda_major);
    if (!release) return report_error(release.error(), o);
    auto cached = request->cache_dir / release->file_name;
    if (!std::filesystem::exists(cached)) {
      auto installed = installed_cudnn_version(*cuda->toolkit);
      bool changes = !installed || !installed->same_release(release->version);
      answer().merge({{"dry_run", true},
                      {"result", "dry_run"},
                      {"changed", changes},
                      {"release", release_json(*release)},
                      {"toolkit", cuda->toolkit->root.string()}});
      if (o.format == Format::Text)
        std::cout << cuda->why << " \u2192 " << release->file_name << "\ndry run: it is not in the cache ("
                  << request->cache_dir.string()
                  << "); a real run downloads it, then installs it. Nothing was written.\n";
      return 0;
    }
    answer()["release"] = release_json(*release);
    o.archive = cached;
    o.manifest = manifest_of(*release, *request);
    if (o.manifest && !std::filesystem::exists(*o.manifest)) o.manifest.reset();  // read, not cached, by this run
  } else {
    auto fetched = fetch_with_progress(*request, o);
    if (!fetched) return report_error(fetched.error(), o);
    answer()["release"] = release_json(fetched->release);
    o.archive = fetched->archive;
    o.manifest = manifest_of(fetched->release, *request);
  }
  o.cuda_root = cuda->toolkit->root;
  return cmd_install(o);
}

}  // namespace cudnn_install::cli
