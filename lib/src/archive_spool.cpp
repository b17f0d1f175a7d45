// One decoding pass for compressed tars: list, check and copy in the same pass (see archive.hpp).
#include "archive_entry_digest.hpp"
#include "archive_inspect.hpp"
#include "archive_read_progress.hpp"
#include "base/try.hpp"
#include "cudnn_install/archive.hpp"
#include "txn_validate.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// Space left free on the toolkit's filesystem after spooling, so that a hostile archive that
// inflates to more than the disk holds is refused instead of filling it. (Measured on the state
// directory: the spool itself does not exist yet when the Spooler is made.)
constexpr std::uint64_t kSpoolReserveBytes = 256u << 20;

class Spooler {
 public:
  Spooler(FileSystem& fs, fs::path dir, const ReadProgress& progress, std::uint64_t file_bytes)
      : fs_(fs), dir_(std::move(dir)), progress_(progress), file_bytes_(file_bytes) {
    std::error_code ec;
    auto space = fs::space(dir_.parent_path(), ec);
    if (ec)
      budget_ = UINT64_MAX;  // unknown: the writes themselves report a full disk
    else if (space.available > kSpoolReserveBytes)
      budget_ = space.available - kSpoolReserveBytes;
  }

  Result<Listing> run(ArchiveReader& reader) {
    TRY(fs_.make_dir(dir_));
    ProgressReporter reporter(progress_, reader, file_bytes_);
    reporter_ = &reporter;
    auto r = reader.extract([&](const RawEntry& e) { return visit(e); });
    reporter_ = nullptr;
    if (!r) return std::unexpected(r.error());
    reporter.done();
    return std::move(listing_);
  }

  std::map<std::string, fs::path> take_spooled() { return std::move(spooled_); }

 private:
  Result<std::optional<ChunkSink>> visit(const RawEntry& e) {
    listing_.entries.push_back(e);
    if (e.type != EntryType::File) return std::optional<ChunkSink>();
    TRY(digest_.start(e, is_version_header(e)));
    if (e.size > budget_ - spooled_bytes_)
      return fail(ErrorCode::Io,
                  "the archive unpacks to more than the free space on " + dir_.parent_path().string() + " (entry '" +
                      e.name + "' is " + std::to_string(e.size >> 20) + " MiB): free some space first",
                  e.name);
    spooled_bytes_ += e.size;
    fs::path file = dir_ / std::to_string(listing_.entries.size());
    TRY_ASSIGN(auto out, fs_.create_new(file, e.mode ? (e.mode & 0777) : 0644));
    out_ = std::move(out);
    spooled_[e.name] = file;
    return std::optional<ChunkSink>([this](std::span<const char> chunk) { return take(chunk); });
  }

  Result<void> take(std::span<const char> chunk) {
    if (chunk.empty()) {  // end of the entry: its size was checked by the reader
      digest_.finish(listing_.entries.back(), listing_);
      auto closed = out_->sync_and_close();
      out_.reset();
      return closed;
    }
    digest_.add(chunk);
    reporter_->decoded(chunk.size());
    return out_->write(chunk);
  }

  FileSystem& fs_;
  fs::path dir_;
  const ReadProgress& progress_;
  std::uint64_t file_bytes_ = 0;
  ProgressReporter* reporter_ = nullptr;  // while run() reads
  std::uint64_t budget_ = 0, spooled_bytes_ = 0;
  Listing listing_;
  std::map<std::string, fs::path> spooled_;
  std::unique_ptr<OutputFile> out_;
  EntryDigest digest_;  // of the entry being copied
};

}  // namespace

Result<ArchiveInfo> inspect_and_spool(const fs::path& path, NameCheck check, FileSystem& fs, const fs::path& spool_dir,
                                      const ReadProgress& progress) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  Spooler spooler(fs, spool_dir, progress, ec ? 0 : size);
  auto info = inspect_with(path, check, read_with([&](ArchiveReader& reader) { return spooler.run(reader); }));
  if (info) info->spooled = spooler.take_spooled();
  return info;
}

Result<void> remove_spool(FileSystem& fs, const fs::path& spool_dir) {
  TRY_ASSIGN(bool there, state_subdir(fs, spool_dir));  // never listed through a symlink
  if (!there) return {};
  TRY_ASSIGN(auto names, fs.list_dir(spool_dir));
  for (const auto& name : names) TRY(fs.remove(spool_dir / name));
  return fs.remove(spool_dir);
}

}  // namespace cudnn_install
