// tar.xz and tgz archives through libarchive. A compressed tar cannot be searched, so list()
// decodes the whole stream once, computing each entry's CRC-32 and keeping the headers asked for.
#include "archive_xz.hpp"
#include "cudnn_install/archive_reader.hpp"
#include "entry_digest.hpp"
#include "lazy_libs.hpp"
#include "read_progress.hpp"

namespace cudnn_install {
namespace {

struct ArchiveCloser {
  const LibArchive* api;
  void operator()(archive* a) const { api->archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveCloser>;

EntryType type_of(const LibArchive& api, archive_entry* e) {
  if (api.archive_entry_hardlink(e) != nullptr) return EntryType::Hardlink;
  switch (api.archive_entry_filetype(e)) {
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

RawEntry describe(const LibArchive& api, archive_entry* e) {
  RawEntry entry;
  const char* name = api.archive_entry_pathname(e);
  entry.name = name ? name : "";
  entry.type = type_of(api, e);
  entry.size = api.archive_entry_size_is_set(e) ? static_cast<std::uint64_t>(api.archive_entry_size(e)) : 0;
  entry.mode = static_cast<std::uint32_t>(api.archive_entry_perm(e));
  if (const char* link = api.archive_entry_symlink(e)) entry.link_target = link;
  if (const char* hard = api.archive_entry_hardlink(e)) entry.link_target = hard;
  return entry;
}

class TarReader final : public ArchiveReader {
 public:
  TarReader(const LibArchive& api, std::filesystem::path path, std::string bytes)
      : api_(api), path_(std::move(path)), bytes_(std::move(bytes)) {}

  Result<Listing> list(const CapturePredicate& capture, const ReadProgress& progress) override {
    Listing listing;
    ProgressReporter reporter(progress, *this, file_bytes());
    EntryDigest digest;
    auto r = walk([&](RawEntry& entry, archive* a) -> Result<void> {
      bool file = entry.type == EntryType::File;
      if (auto ok = digest.start(entry, file && capture && capture(entry)); !ok) return ok;
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
    return static_cast<std::uint64_t>(api_.archive_filter_bytes(current_->archive.get(), -1));
  }

  Result<void> extract(const ExtractVisitor& visit) override {
    return walk([&](RawEntry& entry, archive* a) -> Result<void> {
      auto sink = visit(entry);
      if (!sink) return std::unexpected(sink.error());
      if (!*sink) return read_data(a, entry, [](std::span<const char>) -> Result<void> { return {}; });
      return read_data(a, entry, **sink);
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
    const char* why = api_.archive_error_string(a);
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
    Opened o{nullptr, ArchivePtr(api_.archive_read_new(), ArchiveCloser{&api_})};
    archive* a = o.archive.get();
    api_.archive_read_support_filter_xz(a);
    api_.archive_read_support_filter_gzip(a);
    api_.archive_read_support_format_tar(a);
    int rc = ARCHIVE_OK;
    if (!bytes_.empty() || path_.empty())
      rc = api_.archive_read_open_memory(a, bytes_.data(), bytes_.size());
    else if (!(o.xz = open_xz_threaded(api_, a, path_, &rc)))
      rc = api_.archive_read_open_filename(a, path_.c_str(), 1 << 20);
    if (rc != ARCHIVE_OK) {
      auto r = corrupt(a, "cannot open");
      return std::unexpected(r.error());
    }
    return o;
  }

  template <class Fn>
  Result<void> walk(Fn&& on_entry) {
    auto opened = open();
    if (!opened) return std::unexpected(opened.error());
    archive* a = opened->archive.get();
    current_ = &*opened;
    struct Forget {
      const Opened*& current;
      ~Forget() { current = nullptr; }
    } forget{current_};
    while (true) {
      archive_entry* e = nullptr;
      int rc = api_.archive_read_next_header(a, &e);
      if (rc == ARCHIVE_EOF) return {};
      if (rc < ARCHIVE_WARN) return corrupt(a, "reading an entry header");
      RawEntry entry = describe(api_, e);
      if (entry.size > kMaxEntryBytes)
        return fail(ErrorCode::UnsafeEntry, "entry '" + entry.name + "' claims an implausible size", entry.name);
      if (auto r = on_entry(entry, a); !r) return r;
    }
  }

  Result<void> read_data(archive* a, const RawEntry& entry, const ChunkSink& sink) {
    std::vector<char> buffer(1 << 20);
    std::uint64_t total = 0;
    while (true) {
      la_ssize_t n = api_.archive_read_data(a, buffer.data(), buffer.size());
      if (n < 0) return corrupt(a, "reading '" + entry.name + "'");
      if (n == 0) break;
      total += static_cast<std::uint64_t>(n);
      if (auto r = sink(std::span<const char>(buffer.data(), static_cast<size_t>(n))); !r) return r;
    }
    if (entry.type == EntryType::File && total != entry.size)
      return fail(ErrorCode::BadArchive, "entry '" + entry.name + "' is truncated", entry.name);
    return sink(std::span<const char>());
  }

  const LibArchive& api_;
  std::filesystem::path path_;
  std::string bytes_;
  const Opened* current_ = nullptr;  // while walk() runs: what file_bytes_read() looks at
};

}  // namespace

Result<std::unique_ptr<ArchiveReader>> make_tar_reader(std::filesystem::path path, std::string bytes) {
  auto api = libarchive();
  if (!api) return std::unexpected(api.error());
  return std::make_unique<TarReader>(**api, std::move(path), std::move(bytes));
}

}  // namespace cudnn_install
