// What a listing pass keeps of one file entry while its bytes go by: the CRC-32 (which lets an
// identical reinstall skip the file) and, for the entries asked for, the text (version headers).
// Shared by TarReader::list and the spooling pass, which list the same way.
#pragma once
#include <zlib.h>

#include <span>
#include <string>

#include "cudnn_install/archive_reader.hpp"

namespace cudnn_install {

class EntryDigest {
 public:
  // Refuses an entry to keep that is larger than kMaxCaptureBytes.
  Result<void> start(const RawEntry& entry, bool keep) {
    if (keep && entry.size > kMaxCaptureBytes)
      return fail(ErrorCode::BadArchive, "entry '" + entry.name + "' is too large to read", entry.name);
    keep_ = keep;
    crc_ = crc32(0, nullptr, 0);
    text_.clear();
    return {};
  }
  void add(std::span<const char> chunk) {
    crc_ = crc32(crc_, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()));
    if (keep_) text_.append(chunk.data(), chunk.size());
  }
  // Sets the entry's CRC-32 and files the kept text in the listing.
  void finish(RawEntry& entry, Listing& listing) {
    entry.crc32 = static_cast<std::uint32_t>(crc_);
    if (keep_) listing.captured[entry.name] = std::move(text_);
  }

 private:
  bool keep_ = false;
  uLong crc_ = 0;
  std::string text_;
};

}  // namespace cudnn_install
