// One decoding pass for compressed tars: list, check and copy in the same pass (see archive.hpp).
#include "archive_entry_digest.hpp"
#include "archive_inspect.hpp"
#include "archive_read_progress.hpp"
#include "base/try.hpp"
#include "cudnn_install/archive.hpp"
#include "free_space.hpp"
#include "txn_validate.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

class Spooler {
 public:
  // The space is asked of the state directory, where the spool is made: every file of the archive is
  // written there once (and later renamed into place, which takes no more), so an archive that
  // inflates to more than the disk holds is refused before it fills it.
  Spooler(FileSystem& fs, fs::path dir, const ReadProgress& progress, std::uint64_t file_bytes, Interrupts* interrupts)
      : fs_(fs),
        dir_(std::move(dir)),
        progress_(progress),
        file_bytes_(file_bytes),
        interrupts_(interrupts),
        space_(fs_.free_space(dir_.parent_path())) {}

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
    TRY(stop_if_interrupted(interrupts_, Checkpoint::Spool));
    listing_.entries.push_back(e);
    if (e.type != EntryType::File) return std::optional<ChunkSink>();
    TRY(digest_.start(e, is_version_header(e)));
    TRY(count_space(e));
    fs::path file = dir_ / std::to_string(listing_.entries.size());
    TRY_ASSIGN(auto out, fs_.create_new(file, installed_mode(e.name, e.mode)));
    out_ = std::move(out);
    spooled_[e.name] = file;
    return std::optional<ChunkSink>([this](std::span<const char> chunk) { return take(chunk); });
  }

  Result<void> count_space(const RawEntry& e) {
    if (!space_) return {};  // unknown: the writes themselves report a full disk
    spooled_bytes_ += on_disk(e.size, *space_);
    if (spooled_bytes_ + kSpaceMarginBytes <= space_->available) return {};
    return fail(ErrorCode::Io,
                not_enough_space(dir_.parent_path(), spooled_bytes_, space_->available) +
                    " (the archive unpacks to "
                    "more than that; it was refused at entry '" +
                    e.name + "')",
                e.name);
  }

  Result<void> take(std::span<const char> chunk) {
    if (chunk.empty()) {  // end of the entry: its size was checked by the reader
      digest_.finish(listing_.entries.back(), listing_);
      auto closed = out_->sync_and_close();
      out_.reset();
      return closed;
    }
    TRY(stop_if_interrupted(interrupts_, Checkpoint::Spool));
    digest_.add(chunk);
    reporter_->decoded(chunk.size());
    return out_->write(chunk);
  }

  FileSystem& fs_;
  fs::path dir_;
  const ReadProgress& progress_;
  std::uint64_t file_bytes_ = 0;
  Interrupts* interrupts_;                // may be nullptr
  ProgressReporter* reporter_ = nullptr;  // while run() reads
  std::optional<FreeSpace> space_;        // of the state directory, before the spool
  std::uint64_t spooled_bytes_ = 0;
  Listing listing_;
  std::map<std::string, fs::path> spooled_;
  std::unique_ptr<OutputFile> out_;
  EntryDigest digest_;  // of the entry being copied
};

}  // namespace

Result<ArchiveInfo> inspect_and_spool(const fs::path& path, const std::optional<ArchiveName>& named, FileSystem& fs,
                                      const fs::path& spool_dir, const ReadProgress& progress, Interrupts* interrupts) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  Spooler spooler(fs, spool_dir, progress, ec ? 0 : size, interrupts);
  auto info = inspect_with(path, named, read_with([&](ArchiveReader& reader) { return spooler.run(reader); }));
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
