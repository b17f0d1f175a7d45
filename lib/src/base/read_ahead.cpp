#include "base/read_ahead.hpp"

#include <fstream>

namespace cudnn_install {

ReadAhead::ReadAhead(std::istream& in) : in_(in), reader_([this] { read_all(); }) {}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  reader_.join();
}

// Fills the two slots in turn. A chunk shorter than kChunkBytes is the last one (it may be empty).
void ReadAhead::read_all() {
  for (std::size_t at = 0;; at ^= 1) {
    Slot& slot = slots_[at];
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !slot.full || stop_; });
      if (stop_) return;
    }
    in_.read(slot.bytes.data(), static_cast<std::streamsize>(kChunkBytes));  // the slot is ours
    std::size_t size = static_cast<std::size_t>(in_.gcount());
    bool last = size < kChunkBytes;
    {
      std::lock_guard lock(mutex_);
      slot.size = size;
      slot.full = true;
      if (last) reached_end_ = in_.eof() && !in_.bad();
    }
    changed_.notify_all();
    if (last) return;
  }
}

std::span<const char> ReadAhead::next() {
  std::unique_lock lock(mutex_);
  if (holding_) {  // give the previous chunk back to the reader
    slots_[consumer_at_ ^ 1].full = false;
    holding_ = false;
    changed_.notify_all();
  }
  if (finished_) return {};
  Slot& slot = slots_[consumer_at_];
  changed_.wait(lock, [&] { return slot.full; });
  finished_ = slot.size < kChunkBytes;
  holding_ = true;
  consumer_at_ ^= 1;
  return {slot.bytes.data(), slot.size};
}

Result<void> read_file_ahead(const std::filesystem::path& path,
                             const std::function<void(std::span<const char>)>& consume,
                             const std::function<void(std::uint64_t, std::uint64_t)>& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Usage, "cannot read '" + path.string() + "'", path.string());
  std::error_code ec;
  std::uint64_t total = std::filesystem::file_size(path, ec), done = 0;
  ReadAhead reader(in);
  for (auto chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
    consume(chunk);
    done += chunk.size();
    if (progress) progress(done, total);
  }
  if (!reader.reached_end()) return fail(ErrorCode::Io, "error while reading '" + path.string() + "'", path.string());
  return {};
}

}  // namespace cudnn_install
