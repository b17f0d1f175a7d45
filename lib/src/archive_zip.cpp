// Zip archives through libzip: the central directory gives names, sizes and CRCs without
// inflating anything, which keeps --dry-run of a 700 MB zip fast.
#include <sys/stat.h>
#include <zip.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive_reader.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {
namespace {

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using ZipPtr = std::unique_ptr<zip_t, ZipCloser>;
using ZipFilePtr = std::unique_ptr<zip_file_t, ZipFileCloser>;

constexpr std::uint32_t kUnixTypeMask = 0170000;
constexpr std::uint32_t kUnixSymlink = 0120000;

class ZipReader final : public ArchiveReader {
 public:
  ZipReader(std::filesystem::path path, std::string bytes) : path_(std::move(path)), bytes_(std::move(bytes)) {}

  // The central directory is read at once: no progress to report.
  Result<Listing> list(const CapturePredicate& capture, const ReadProgress&) override {
    TRY_ASSIGN(auto zip, open());
    Listing listing;
    zip_int64_t count = zip_get_num_entries(zip.get(), 0);
    for (zip_int64_t i = 0; i < count; ++i) {
      TRY_ASSIGN(auto entry, describe(zip.get(), static_cast<zip_uint64_t>(i)));
      bool wanted = entry.type == EntryType::File && capture && capture(entry);
      if (entry.type == EntryType::Symlink || wanted) {
        TRY_ASSIGN(auto content, read_all(zip.get(), static_cast<zip_uint64_t>(i), entry));
        if (entry.type == EntryType::Symlink)
          entry.link_target = content;
        else
          listing.captured[entry.name] = std::move(content);
      }
      listing.entries.push_back(std::move(entry));
    }
    return listing;
  }

  Result<void> extract(const ExtractVisitor& visit) override { return extract_parallel(visit, 1); }

  // Every entry is offered to the visitor first, in archive order; the ones it takes are then
  // inflated by `workers` threads, each with its own handle on the archive (a zip_t must not be
  // shared between threads), the largest entries first.
  Result<void> extract_parallel(const ExtractVisitor& visit, unsigned workers) override {
    TRY_ASSIGN(auto jobs, offer_entries(visit));
    std::vector<std::vector<const Job*>> shares = share_out(jobs, std::max(1u, workers));
    // The handles are opened here, one after the other: reading the directory converts DOS times
    // with mktime, which changes the C library's time zone state.
    std::vector<ZipPtr> handles;
    for (std::size_t t = 0; t < shares.size(); ++t) {
      TRY_ASSIGN(auto zip, open());
      handles.push_back(std::move(zip));
    }
    FirstError first;
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < shares.size(); ++t)
      threads.emplace_back([&, t] { inflate(handles[t].get(), shares[t], first); });
    if (!shares.empty()) inflate(handles[0].get(), shares[0], first);  // this thread takes a share too
    for (auto& thread : threads) thread.join();
    return first.result();
  }

 private:
  struct Job {
    zip_uint64_t index = 0;
    RawEntry entry;
    ChunkSink sink;
    std::uint64_t compressed = 0;
  };

  // The first error of any worker; the others stop at their next chunk.
  class FirstError {
   public:
    void record(const Error& e) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = e;
      stop_ = true;
    }
    bool stopped() const { return stop_; }
    Result<void> result() const { return error_ ? Result<void>(std::unexpected(*error_)) : Result<void>(); }

   private:
    std::mutex mutex_;
    std::optional<Error> error_;
    std::atomic<bool> stop_ = false;
  };

  Result<std::vector<Job>> offer_entries(const ExtractVisitor& visit) {
    TRY_ASSIGN(auto zip, open());
    std::vector<Job> jobs;
    zip_int64_t count = zip_get_num_entries(zip.get(), 0);
    for (zip_int64_t i = 0; i < count; ++i) {
      auto index = static_cast<zip_uint64_t>(i);
      TRY_ASSIGN(auto entry, describe(zip.get(), index));
      if (entry.type == EntryType::Symlink) {
        TRY_ASSIGN(auto target, read_all(zip.get(), index, entry));
        entry.link_target = target;
      }
      TRY_ASSIGN(auto sink, visit(entry));
      if (sink) jobs.push_back({index, std::move(entry), std::move(*sink), compressed_size(zip.get(), index)});
    }
    return jobs;
  }

  std::uint64_t compressed_size(zip_t* zip, zip_uint64_t index) {
    zip_stat_t st;
    zip_stat_init(&st);
    return zip_stat_index(zip, index, 0, &st) == 0 && (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
  }

  // Largest first, each to the worker with the least so far: the workers finish close together.
  static std::vector<std::vector<const Job*>> share_out(const std::vector<Job>& jobs, unsigned workers) {
    std::vector<const Job*> order;
    order.reserve(jobs.size());
    for (const auto& j : jobs) order.push_back(&j);
    std::stable_sort(order.begin(), order.end(),
                     [](const Job* a, const Job* b) { return a->compressed > b->compressed; });
    std::size_t n = std::min<std::size_t>(workers, order.size());
    std::vector<std::vector<const Job*>> shares(n);
    std::vector<std::uint64_t> load(n, 0);
    for (const Job* j : order) {
      std::size_t least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
      shares[least].push_back(j);
      load[least] += j->compressed + 1;
    }
    return shares;
  }

  void inflate(zip_t* zip, const std::vector<const Job*>& share, FirstError& first) {
    for (const Job* job : share) {
      auto until_stopped = [&](std::span<const char> chunk) -> Result<void> {
        if (first.stopped()) return fail(ErrorCode::Io, "stopped: another entry failed");
        return job->sink(chunk);
      };
      if (first.stopped()) return;
      if (auto r = stream(zip, job->index, job->entry, until_stopped); !r) return first.record(r.error());
    }
  }

  std::string where() const { return path_.empty() ? std::string("<memory>") : path_.string(); }

  Result<ZipPtr> open() {
    zip_error_t error;
    zip_error_init(&error);
    zip_t* raw = nullptr;
    if (bytes_.empty() && !path_.empty()) {
      int code = 0;
      raw = zip_open(utf8_text(path_).c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
      zip_error_init_with_code(&error, code);
    } else if (zip_source_t* src = zip_source_buffer_create(bytes_.data(), bytes_.size(), 0, &error)) {
      raw = zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &error);
      if (!raw) zip_source_free(src);
    }
    if (!raw) {
      std::string why = zip_error_strerror(&error);
      zip_error_fini(&error);
      return fail(ErrorCode::BadArchive,
                  "cannot open '" + where() + "' as a zip archive: " + why +
                      ". The download may be incomplete or corrupt; download it again.",
                  where());
    }
    zip_error_fini(&error);
    return ZipPtr(raw, ZipCloser{});
  }

  Result<RawEntry> describe(zip_t* zip, zip_uint64_t index) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME))
      return fail(ErrorCode::BadArchive, "unreadable entry #" + std::to_string(index) + " in '" + where() + "'",
                  where());
    RawEntry entry;
    entry.name = st.name;
    entry.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
    if (st.valid & ZIP_STAT_CRC) entry.crc32 = st.crc;
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    zip_file_get_external_attributes(zip, index, 0, &opsys, &attributes);
    std::uint32_t unix_mode = opsys == ZIP_OPSYS_UNIX ? attributes >> 16 : 0;
    entry.mode = unix_mode & 07777;
    if (entry.name.ends_with('/'))
      entry.type = EntryType::Directory;
    else if ((unix_mode & kUnixTypeMask) == kUnixSymlink)
      entry.type = EntryType::Symlink;
    else if ((unix_mode & kUnixTypeMask) != 0 && (unix_mode & kUnixTypeMask) != S_IFREG)
      entry.type = EntryType::Other;
    if (entry.size > kMaxEntryBytes)
      return fail(ErrorCode::UnsafeEntry, "entry '" + entry.name + "' claims an implausible size", entry.name);
    return entry;
  }

  Result<std::string> read_all(zip_t* zip, zip_uint64_t index, const RawEntry& entry) {
    if (entry.size > kMaxCaptureBytes)
      return fail(ErrorCode::BadArchive, "entry '" + entry.name + "' is too large to read into memory", entry.name);
    std::string content;
    auto r = stream(zip, index, entry, [&](std::span<const char> chunk) -> Result<void> {
      content.append(chunk.data(), chunk.size());
      return {};
    });
    if (!r) return std::unexpected(r.error());
    return content;
  }

  // libzip checks the CRC when the last byte has been read: corrupt data fails here.
  Result<void> stream(zip_t* zip, zip_uint64_t index, const RawEntry& entry, const ChunkSink& sink) {
    ZipFilePtr file(zip_fopen_index(zip, index, 0), ZipFileCloser{});
    if (!file)
      return fail(ErrorCode::BadArchive,
                  "cannot read entry '" + entry.name + "': " + zip_strerror(zip) + " (corrupt archive?)", entry.name);
    std::vector<char> buffer(1 << 20);
    std::uint64_t total = 0;
    while (true) {
      zip_int64_t n = zip_fread(file.get(), buffer.data(), buffer.size());
      if (n < 0)
        return fail(
            ErrorCode::BadArchive,
            "entry '" + entry.name + "' is corrupt: " + zip_file_strerror(file.get()) + ". Download the archive again.",
            entry.name);
      if (n == 0) break;
      total += static_cast<std::uint64_t>(n);
      TRY(sink(std::span<const char>(buffer.data(), static_cast<size_t>(n))));
    }
    if (total != entry.size) return fail(ErrorCode::BadArchive, "entry '" + entry.name + "' is truncated", entry.name);
    return sink(std::span<const char>());
  }

  std::filesystem::path path_;
  std::string bytes_;
};

}  // namespace

Result<std::unique_ptr<ArchiveReader>> make_zip_reader(std::filesystem::path path, std::string bytes) {
  return std::make_unique<ZipReader>(std::move(path), std::move(bytes));
}

}  // namespace cudnn_install
