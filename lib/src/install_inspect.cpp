// The install's first stage: the archive listed and checked, its sha256 checked against NVIDIA's
// values; both remembered per toolkit so that the same unchanged file is not read again.
#include "install_inspect.hpp"

#include <spdlog/spdlog.h>

#include <future>

#include "base/try.hpp"
#include "cudnn_install/archive_memo.hpp"
#include "cudnn_install/state_dir.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// The archive's sha256 against the manifest or the known-archives table, under NVIDIA's name of it
// (a renamed file is checked as the archive it was identified as); a mismatch refuses it.
Result<IntegrityCheck> check_sha256(const InstallRequest& request, const ArchiveIdentity& identity,
                                    const std::string& sha) {
  TRY_ASSIGN(auto manifest, read_manifest_file(request.manifest));
  std::error_code ec;
  auto bytes = fs::file_size(request.archive, ec);
  auto check = check_integrity(identity.name.file_name, sha, ec ? 0 : bytes, manifest,
                               request.manifest ? request.manifest->filename().string() : "");
  if (check && check->verdict == IntegrityCheck::Verdict::Unknown) spdlog::warn("{}", check->note);
  if (!check && !identity.how.empty())  // a renamed file: say which file the refused name stands for
    check.error().message =
        "'" + request.archive.filename().string() + "' was " + identity.how + ": " + check.error().message;
  return check;
}

// The sha256 computed to identify a renamed file is not computed again.
Result<IntegrityCheck> hash_and_check(const InstallRequest& request, const ArchiveIdentity& identity,
                                      const HashProgress& progress) {
  if (!identity.sha256.empty()) return check_sha256(request, identity, identity.sha256);
  TRY_ASSIGN(auto sha, sha256_file(request.archive, progress));
  return check_sha256(request, identity, sha);
}

Result<Inspected> from_memo(const ArchiveMemo& memo, const InstallRequest& request, const ArchiveIdentity& identity) {
  TRY_ASSIGN(auto archive, inspect_with_listing(request.archive, identity.name, memo.listing));
  archive.identified = identity.how;
  TRY_ASSIGN(auto integrity, check_sha256(request, identity, memo.sha256));
  spdlog::debug("{}: sha256 and listing remembered from {}", request.archive.string(), memo.time);
  return Inspected{std::move(archive), std::move(integrity), memo.identity, memo.time};
}

}  // namespace

Result<Inspected> inspect_and_check(const InstallRequest& request, const Toolkit& toolkit,
                                    const InstallServices& services) {
  // Before anything reads it (the sha256 would wait forever on a FIFO, or read /dev/zero forever).
  TRY(check_regular_file(request.archive));
  TRY_ASSIGN(auto which, request.identity
                             ? Result<ArchiveIdentity>(*request.identity)
                             : identify_archive(request.archive, request.manifest, services.hash_progress));
  if (auto memo = find_archive_memo(services.fs, toolkit.root, request.archive))
    return from_memo(*memo, request, which);
  // Taken before reading: a file that changes meanwhile is never remembered.
  auto identity = services.fs.identity(request.archive);
  bool tar = which.name.container != Container::Zip;
  // One progress line at a time: a tar.xz's decoding (the longer of the two), or a zip's sha256.
  auto hash_progress = tar ? HashProgress() : services.hash_progress;
  auto read_progress = tar ? services.read_progress : ReadProgress();
  auto hashing = std::async(std::launch::async, [&] { return hash_and_check(request, which, hash_progress); });
  spdlog::debug("inspecting {}", request.archive.string());
  auto archive = tar && request.spooling == Spooling::IntoToolkit
                     ? inspect_and_spool(request.archive, which.name, services.fs, spool_dir(toolkit.root),
                                         read_progress, request.apply.interrupts)
                     : inspect_archive(request.archive, which.name, read_progress);
  auto integrity = hashing.get();
  if (!archive) return std::unexpected(archive.error());
  if (!integrity) return std::unexpected(integrity.error());
  archive->identified = which.how;
  return Inspected{std::move(*archive), std::move(*integrity), identity, ""};
}

void remember_inspected(FileSystem& fs, const Toolkit& toolkit, const Inspected& inspected) {
  if (!inspected.identity || !inspected.remembered_at.empty()) return;  // unknown, or remembered already
  ArchiveMemo memo{*inspected.identity, inspected.integrity.sha256, "", inspected.archive.listing};
  if (auto r = remember_archive(fs, toolkit.root, std::move(memo)); !r)
    spdlog::warn("could not remember the archive for the next run ({}); nothing else is affected", r.error().message);
}

// NOLINTNEXTLINE(bugprone-exception-escape): remove_spool reports by value and spdlog catches its own
SpoolRemover::~SpoolRemover() {
  if (auto r = remove_spool(fs_, dir_); !r) spdlog::warn("could not remove {}: {}", dir_.string(), r.error().message);
}

}  // namespace cudnn_install
