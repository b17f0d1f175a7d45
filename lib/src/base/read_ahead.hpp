// Reading a stream one chunk ahead of its consumer, on a second thread. The sha256 of an archive
// (integrity_sha256_posix.cpp, integrity_sha256_win32.cpp) uses it so that copying the archive out
// of the page cache overlaps the hashing instead of adding to it (measured in
// bench/results/install-speed-2026-12-03c.md).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

class ReadAhead {
 public:
  static constexpr std::size_t kChunkBytes = 1 << 20;

  explicit ReadAhead(std::istream& in);
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The next chunk, valid until the following call; empty at the end of the stream.
  std::span<const char> next();
  // After next() returned empty: whether the stream ended without a read error.
  bool reached_end() const { return reached_end_; }

 private:
  struct Slot {
    std::vector<char> bytes = std::vector<char>(kChunkBytes);
    std::size_t size = 0;
    bool full = false;  // filled by the reader, not yet given back by the consumer
  };

  void read_all();

  std::istream& in_;
  Slot slots_[2];
  std::size_t consumer_at_ = 0;
  bool holding_ = false;      // the consumer holds slots_[consumer_at_ ^ 1] from the last next()
  bool finished_ = false;     // the consumer saw the last chunk
  bool stop_ = false;         // the consumer is gone: the reader stops
  bool reached_end_ = false;  // the reader hit the end of the stream, not an error
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread reader_;
};

// The file at `path`, handed to `consume` chunk by chunk while the next chunk is read, with
// (bytes so far, file size) to `progress` after each chunk. The errors name the file.
Result<void> read_file_ahead(const std::filesystem::path& path,
                             const std::function<void(std::span<const char>)>& consume,
                             const std::function<void(std::uint64_t, std::uint64_t)>& progress);

}  // namespace cudnn_install
