// Reports how far into the archive file a decoding pass is, every few MiB of decoded bytes
// (TarReader::list and the spool share it).
#pragma once
#include <algorithm>
#include <cstdint>

#include "cudnn_install/archive_reader.hpp"

namespace cudnn_install {

class ProgressReporter {
 public:
  ProgressReporter(const ReadProgress& progress, const ArchiveReader& reader, std::uint64_t file_bytes)
      : progress_(progress), reader_(reader), file_bytes_(file_bytes) {}

  void decoded(std::uint64_t bytes) {
    if (!progress_) return;
    unreported_ += bytes;
    if (unreported_ < kEvery) return;
    unreported_ = 0;
    progress_(std::min(reader_.file_bytes_read(), file_bytes_), file_bytes_);
  }
  void done() {
    if (progress_) progress_(file_bytes_, file_bytes_);
  }

 private:
  static constexpr std::uint64_t kEvery = 4u << 20;
  const ReadProgress& progress_;
  const ArchiveReader& reader_;
  std::uint64_t file_bytes_, unreported_ = 0;
};

}  // namespace cudnn_install
