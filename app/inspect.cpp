#include "inspect.hpp"

#include <spdlog/spdlog.h>

#include <fstream>
#include <future>
#include <iostream>

#include "cudnn_install/archive_memo.hpp"
#include "cudnn_install/txn.hpp"
#include "progress.hpp"

namespace cudnn_install::cli {
namespace {

constexpr std::uint64_t kShowProgressFrom = 64u << 20;  // smaller archives take well under a second

// The archive's sha256 against the manifest or the known-archives table; a mismatch refuses it.
Result<IntegrityCheck> check_sha256(const std::filesystem::path& archive, const std::string& sha, const Options& o) {
  std::optional<std::vector<ManifestEntry>> manifest;
  if (o.manifest) {
    std::ifstream in(*o.manifest, std::ios::binary);  // the user's file, not the state's: a symlink is fine
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.is_open()) return fail(ErrorCode::Usage, "cannot read the manifest '" + o.manifest->string() + "'");
    auto entries = parse_manifest(text);
    if (!entries) return std::unexpected(entries.error());
    manifest = std::move(*entries);
  }
  std::error_code ec;
  auto bytes = std::filesystem::file_size(archive, ec);
  auto check = check_integrity(archive.filename().string(), sha, ec ? 0 : bytes, manifest,
                               o.manifest ? o.manifest->filename().string() : "");
  if (check && check->verdict == IntegrityCheck::Verdict::Unknown) spdlog::warn("{}", check->note);
  return check;
}

Result<IntegrityCheck> hash_and_check(const std::filesystem::path& archive, const HashProgress& progress,
                                      const Options& o) {
  auto sha = sha256_file(archive, progress);
  if (!sha) return std::unexpected(sha.error());
  return check_sha256(archive, *sha, o);
}

Result<Inspected> from_memo(const ArchiveMemo& memo, const Options& o) {
  auto archive = inspect_with_listing(o.archive, name_check(o), memo.listing);
  if (!archive) return std::unexpected(archive.error());
  auto integrity = check_sha256(o.archive, memo.sha256, o);
  if (!integrity) return std::unexpected(integrity.error());
  spdlog::debug("{}: sha256 and listing remembered from {}", o.archive.string(), memo.time);
  return Inspected{std::move(*archive), std::move(*integrity), memo.identity, memo.time};
}

}  // namespace

NameCheck name_check(const Options& o) { return o.force_name ? NameCheck::Skip : NameCheck::Enforce; }

Result<Inspected> inspect_and_check(const Toolkit& toolkit, FileSystem& fs, Spooling spooling, const Options& o,
                                    Interrupts* interrupts) {
  // Before anything reads it (the sha256 would wait forever on a FIFO, or read /dev/zero forever).
  if (auto regular = check_regular_file(o.archive); !regular) return std::unexpected(regular.error());
  if (auto memo = find_archive_memo(fs, toolkit.root, o.archive)) return from_memo(*memo, o);
  auto identity = fs.identity(o.archive);  // before reading: a file that changes meanwhile is never remembered
  bool tar = container_from_extension(o.archive.filename().string()) != Container::Zip;
  // One progress line at a time: a tar.xz's decoding (the longer of the two), or a zip's sha256.
  auto hash_progress = tar ? HashProgress() : percent_line(o, "sha256", kShowProgressFrom);
  auto read_progress = tar ? percent_line(o, "reading", kShowProgressFrom) : ReadProgress();
  auto hashing = std::async(std::launch::async, [&] { return hash_and_check(o.archive, hash_progress, o); });
  spdlog::debug("inspecting {}", o.archive.string());
  auto archive =
      tar && spooling == Spooling::IntoToolkit
          ? inspect_and_spool(o.archive, name_check(o), fs, spool_dir(toolkit.root), read_progress, interrupts)
          : inspect_archive(o.archive, name_check(o), read_progress);
  auto integrity = hashing.get();
  if (!archive) return std::unexpected(archive.error());
  if (!integrity) return std::unexpected(integrity.error());
  return Inspected{std::move(*archive), std::move(*integrity), identity, ""};
}

void remember(FileSystem& fs, const Toolkit& toolkit, const Inspected& inspected) {
  if (!inspected.identity || !inspected.remembered_at.empty()) return;  // unknown, or remembered already
  ArchiveMemo memo{*inspected.identity, inspected.integrity.sha256, "", inspected.archive.listing};
  if (auto r = remember_archive(fs, toolkit.root, std::move(memo)); !r)
    spdlog::warn("could not remember the archive for the next run ({}); nothing else is affected", r.error().message);
}

SpoolCleanup::~SpoolCleanup() {
  if (auto r = remove_spool(fs, dir); !r) spdlog::warn("could not remove {}: {}", dir.string(), r.error().message);
}

}  // namespace cudnn_install::cli
