// The install's first stage: the archive listed and checked, its sha256 checked against NVIDIA's
// values; both remembered per toolkit so that the same unchanged file is not read again.
#include "install_inspect.hpp"

#include <spdlog/spdlog.h>

#include <future>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive_memo.hpp"
#include "cudnn_install/state_dir.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// The user's file, not the state's: a symlink is fine, a FIFO or a device is refused before it is
// read, and so is a file far larger than any of NVIDIA's manifests.
Result<std::optional<std::vector<ManifestEntry>>> read_manifest(const std::optional<fs::path>& manifest) {
  if (!manifest) return std::nullopt;
  TRY(check_regular_file(*manifest, FileRole::Manifest));
  std::error_code ec;
  if (auto bytes = fs::file_size(*manifest, ec); !ec && bytes > util::kSmallFileLimit)
    return fail(ErrorCode::Usage, "the manifest '" + manifest->string() + "' is " + util::human_bytes(bytes) +
                                      ": NVIDIA's redistrib_*.json manifests are far smaller. Is it the right file?");
  auto text = util::read_text_file(*manifest);
  if (!text) return fail(ErrorCode::Usage, "cannot read the manifest '" + manifest->string() + "'");
  TRY_ASSIGN(auto entries, parse_manifest(*text));
  return entries;
}

// The archive's sha256 against the manifest or the known-archives table; a mismatch refuses it.
Result<IntegrityCheck> check_sha256(const InstallRequest& request, const std::string& sha) {
  TRY_ASSIGN(auto manifest, read_manifest(request.manifest));
  std::error_code ec;
  auto bytes = fs::file_size(request.archive, ec);
  auto check = check_integrity(request.archive.filename().string(), sha, ec ? 0 : bytes, manifest,
                               request.manifest ? request.manifest->filename().string() : "");
  if (check && check->verdict == IntegrityCheck::Verdict::Unknown) spdlog::warn("{}", check->note);
  return check;
}

Result<IntegrityCheck> hash_and_check(const InstallRequest& request, const HashProgress& progress) {
  TRY_ASSIGN(auto sha, sha256_file(request.archive, progress));
  return check_sha256(request, sha);
}

Result<Inspected> from_memo(const ArchiveMemo& memo, const InstallRequest& request) {
  TRY_ASSIGN(auto archive, inspect_with_listing(request.archive, request.name_check, memo.listing));
  TRY_ASSIGN(auto integrity, check_sha256(request, memo.sha256));
  spdlog::debug("{}: sha256 and listing remembered from {}", request.archive.string(), memo.time);
  return Inspected{std::move(archive), std::move(integrity), memo.identity, memo.time};
}

}  // namespace

Result<Inspected> inspect_and_check(const InstallRequest& request, const Toolkit& toolkit,
                                    const InstallServices& services) {
  // Before anything reads it (the sha256 would wait forever on a FIFO, or read /dev/zero forever).
  TRY(check_regular_file(request.archive));
  if (auto memo = find_archive_memo(services.fs, toolkit.root, request.archive)) return from_memo(*memo, request);
  // Taken before reading: a file that changes meanwhile is never remembered.
  auto identity = services.fs.identity(request.archive);
  bool tar = container_from_extension(request.archive.filename().string()) != Container::Zip;
  // One progress line at a time: a tar.xz's decoding (the longer of the two), or a zip's sha256.
  auto hash_progress = tar ? HashProgress() : services.hash_progress;
  auto read_progress = tar ? services.read_progress : ReadProgress();
  auto hashing = std::async(std::launch::async, [&] { return hash_and_check(request, hash_progress); });
  spdlog::debug("inspecting {}", request.archive.string());
  auto archive = tar && request.spooling == Spooling::IntoToolkit
                     ? inspect_and_spool(request.archive, request.name_check, services.fs, spool_dir(toolkit.root),
                                         read_progress, request.apply.interrupts)
                     : inspect_archive(request.archive, request.name_check, read_progress);
  auto integrity = hashing.get();
  if (!archive) return std::unexpected(archive.error());
  if (!integrity) return std::unexpected(integrity.error());
  return Inspected{std::move(*archive), std::move(*integrity), identity, ""};
}

void remember_inspected(FileSystem& fs, const Toolkit& toolkit, const Inspected& inspected) {
  if (!inspected.identity || !inspected.remembered_at.empty()) return;  // unknown, or remembered already
  ArchiveMemo memo{*inspected.identity, inspected.integrity.sha256, "", inspected.archive.listing};
  if (auto r = remember_archive(fs, toolkit.root, std::move(memo)); !r)
    spdlog::warn("could not remember the archive for the next run ({}); nothing else is affected", r.error().message);
}

SpoolRemover::~SpoolRemover() {
  if (auto r = remove_spool(fs_, dir_); !r) spdlog::warn("could not remove {}: {}", dir_.string(), r.error().message);
}

}  // namespace cudnn_install
