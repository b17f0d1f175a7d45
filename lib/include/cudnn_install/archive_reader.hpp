// Stage 1b: reading zip (libzip) and tar.xz/tgz (libarchive) archives through one interface.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/entry_type.hpp"
#include "cudnn_install/error.hpp"

namespace cudnn_install {

struct RawEntry {
  std::string name;  // as stored in the archive
  EntryType type = EntryType::File;
  std::uint64_t size = 0;              // uncompressed bytes (files)
  std::uint32_t mode = 0;              // permission bits, 0 when the archive has none
  std::string link_target;             // symlinks and hard links
  std::optional<std::uint32_t> crc32;  // zip: from the directory; tar: computed while listing
};

struct Listing {
  std::vector<RawEntry> entries;
  std::map<std::string, std::string> captured;  // entry name -> content, for entries asked for
};

// Chooses the entries whose content list() should keep (small headers such as cudnn_version.h).
using CapturePredicate = std::function<bool(const RawEntry&)>;
// Gets (bytes of the archive file read, its size) while a compressed tar is decoded; may be empty.
using ReadProgress = std::function<void(std::uint64_t, std::uint64_t)>;
// Receives one entry's bytes in order, then one empty chunk that marks the end of the entry
// (after the size and, for zip, the CRC have been checked). An error stops the extraction.
using ChunkSink = std::function<Result<void>(std::span<const char>)>;
// Called for every entry in archive order; return a sink to receive it, or nullopt to skip it.
using ExtractVisitor = std::function<Result<std::optional<ChunkSink>>(const RawEntry&)>;

class ArchiveReader {
 public:
  virtual ~ArchiveReader() = default;
  virtual Result<Listing> list(const CapturePredicate& capture, const ReadProgress& progress) = 0;
  virtual Result<void> extract(const ExtractVisitor& visit) = 0;
  // The same, but the sinks of different entries may run on up to `workers` threads at once (each
  // sink on one thread; the visitor itself is called on this thread, in archive order). A zip
  // inflates its entries in parallel; a tar is one compressed stream and is read in order.
  virtual Result<void> extract_parallel(const ExtractVisitor& visit, unsigned workers) {
    (void)workers;
    return extract(visit);
  }
  // How far into the archive file the reading is, in bytes of the file (compressed): for progress
  // while a compressed tar is decoded. 0 when unknown.
  virtual std::uint64_t file_bytes_read() const { return 0; }
};

// From a file on disk, or from bytes in memory (tests and fuzzing).
Result<std::unique_ptr<ArchiveReader>> open_archive(const std::filesystem::path& path, Container container);
Result<std::unique_ptr<ArchiveReader>> open_archive_memory(std::string bytes, Container container);

// What a file's first bytes (up to 512) say it is ("a zip archive", "an xz-compressed file", "a web
// page ..."), or "" when they say nothing this tool knows.
std::string content_kind(std::string_view head);
// Refuses bytes that are plainly another thing than the container the name promises (a zip named
// .tar.xz): says what they are, instead of the reader's "corrupt or truncated".
Result<void> check_content_matches(std::string_view head, Container named, const std::string& path);
// The same on the file's first bytes (open_archive calls it).
Result<void> check_archive_content(const std::filesystem::path& path, Container named);

// Format-specific factories behind open_archive.
Result<std::unique_ptr<ArchiveReader>> make_zip_reader(std::filesystem::path path, std::string bytes);
Result<std::unique_ptr<ArchiveReader>> make_tar_reader(std::filesystem::path path, std::string bytes);

// Entries larger than this are refused: no cuDNN file comes close (the largest is ~1 GiB).
inline constexpr std::uint64_t kMaxEntryBytes = 8ull << 30;
// Captured entries (headers) larger than this are refused.
inline constexpr std::uint64_t kMaxCaptureBytes = 4u << 20;

}  // namespace cudnn_install
