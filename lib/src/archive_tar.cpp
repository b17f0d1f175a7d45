// tar.xz and tgz archives through libarchive. A compressed tar cannot be searched, so list()
// decodes the whole stream once, computing each entry's CRC-32 and keeping the headers asked for.
#include <archive.h>
#include <archive_entry.h>

#include "archive_entry_digest.hpp"
#include "archive_read_progress.hpp"
#include "archive_xz.hpp"
#include "base/try.hpp"
#include "cudnn_install/archive_reader.hpp"

namespace cudnn_install {
namespace {

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveCloser>;

EntryType type_of(archive_entry* e) {
  if (archive_entry_hardlink(e) != nullptr) return EntryType::Hardlink;
  switch (archive_entry_filetype(e)) {
    case AE_IFREG:
      return EntryType::File;
    case AE_IFDIR:
      return EntryType::Directory;
    case AE_IFLNK:
      return EntryType::Symlink;
    case AE_IFCHR:
    case AE_IFBLK:
      return EntryType::Device;
    case AE_IFIFO:
      return EntryType::Fifo;
    default:
      return EntryType::Other;
  }
}

RawEntry describe(archive_entry* e) {
  RawEntry entry;
  const char* name = archive_entry_pathname(e);
  entry.name = name ? name : "";
  entry.type = type_of(e);
  entry.size = archive_entry_size_is_set(e) ? static_cast<std::uint64_t>(archive_entry_size(e)) : 0;
  entry.mode = static_cast<std::uint32_t>(archive_entry_perm(e));
  if (const char* link = archive_entry_symlink(e)) entry.link_target = link;
  if (const char* hard = archive_entry_hardlink(e)) entry.link_target = hard;
  return entry;
}

class TarReader final : public ArchiveReader {
 public:
  TarReader(std::filesystem::path path, std::string bytes) : path_(std::move(path)), bytes_(std::move(bytes)) {}

  Result<Listing> list(const CapturePredicate& capture, const ReadProgress& progress) override {
    Listing listing;
    ProgressReporter reporter(progress, *this, file_bytes());
    EntryDigest digest;
    auto r = walk([&](RawEntry& entry, archive* a) -> Result<void> {
      bool file = entry.type == EntryType::File;
      TRY(digest.start(entry, file && capture && capture(entry)));
      auto read = read_data(a, entry, [&](std::span<const char> chunk) -> Result<void> {
        if (chunk.empty()) return {};  // end of entry
        digest.add(chunk);
        reporter.decoded(chunk.size());
        return {};
      });
      if (!read) return read;
      if (file) digest.finish(entry, listing);
      listing.entries.push_back(entry);
      return {};
    });
    if (!r) return std::unexpected(r.error());
    reporter.done();
    return listing;
  }

  // Our xz decoder counts its input; libarchive's lowest filter counts what it read of the file.
  std::uint64_t file_bytes_read() const override {
    if (!current_) return 0;
    if (current_->xz) return xz_bytes_consumed(*current_->xz);
    return static_cast<std::uint64_t>(archive_filter_bytes(current_->archive.get(), -1));
  }

  Result<void> extract(const ExtractVisitor& visit) override {
    return walk([&](RawEntry& entry, archive* a) -> Result<void> {
      TRY_ASSIGN(auto sink, visit(entry));
      if (!sink) return read_data(a, entry, [](std::span<const char>) -> Result<void> { return {}; });
      return read_data(a, entry, *sink);
    });
  }

 private:
  std::uint64_t file_bytes() const {
    std::error_code ec;
    auto size = path_.empty() || !bytes_.empty() ? bytes_.size() : std::filesystem::file_size(path_, ec);
    return ec ? 0 : size;
  }

  std::string where() const { return path_.empty() ? std::string("<memory>") : path_.string(); }

  Result<void> corrupt(archive* a, const std::string& what) {
    const char* why = archive_error_string(a);
    return fail(ErrorCode::BadArchive,
                "'" + where() + "' is corrupt or truncated (" + what + ": " + (why ? why : "unknown error") +
                    "). Download the archive again.",
                where());
  }

  // The reader, and the xz decoder feeding it when the file is .xz (declared first: it must outlive
  // the reader, which reads from it until it is freed).
  struct Opened {
    XzSourcePtr xz;
    ArchivePtr archive;
  };

  Result<Opened> open() {
    Opened o{nullptr, ArchivePtr(archive_read_new(), ArchiveCloser{})};
    archive* a = o.archive.get();
    archive_read_support_filter_xz(a);
    archive_read_support_filter_gzip(a);
    archive_read_support_format_tar(a);
    int rc = ARCHIVE_OK;
    if (!bytes_.empty() || path_.empty()) {
      rc = archive_read_open_memory(a, bytes_.data(), bytes_.size());
    } else {
      o.xz = open_xz_threaded(a, path_, &rc);
      if (!o.xz) rc = archive_read_open_filename(a, path_.c_str(), 1 << 20);
    }
    if (rc != ARCHIVE_OK) {
      auto r = corrupt(a, "cannot open");
      return std::unexpected(r.error());
    }
    return o;
  }

  template <class Fn>
  Result<void> walk(Fn&& on_entry) {
    TRY_ASSIGN(auto opened, open());
    archive* a = opened.archive.get();
    current_ = &opened;
    struct Forget {
      const Opened*& current;
      ~Forget() { current = nullptr; }
    } forget{current_};
    while (true) {
      archive_entry* e = nullptr;
      int rc = archive_read_next_header(a, &e);
      if (rc == ARCHIVE_EOF) return {};
      if (rc < ARCHIVE_WARN) return corrupt(a, "reading an entry header");
      RawEntry entry = describe(e);
      if (entry.size > kMaxEntryBytes)
        return fail(ErrorCode::UnsafeEntry, "entry '" + entry.name + "' claims an implausible size", entry.name);
      TRY(on_entry(entry, a));
    }
  }

  Result<void> read_data(archive* a, const RawEntry& entry, const ChunkSink& sink) {
    std::vector<char> buffer(1 << 20);
    std::uint64_t total = 0;
    while (true) {
      la_ssize_t n = archive_read_data(a, buffer.data(), buffer.size());
      if (n < 0) return corrupt(a, "reading '" + entry.name + "'");
      if (n == 0) break;
      total += static_cast<std::uint64_t>(n);
      TRY(sink(std::span<const char>(buffer.data(), static_cast<size_t>(n))));
    }
    if (entry.type == EntryType::File && total != entry.size)
      return fail(ErrorCode::BadArchive, "entry '" + entry.name + "' is truncated", entry.name);
    return sink(std::span<const char>());
  }

  std::filesystem::path path_;
  std::string bytes_;
  const Opened* current_ = nullptr;  // while walk() runs: what file_bytes_read() looks at
};

}  // namespace

Result<std::unique_ptr<ArchiveReader>> make_tar_reader(std::filesystem::path path, std::string bytes) {
  return std::make_unique<TarReader>(std::move(path), std::move(bytes));
}

}  // namespace cudnn_install
