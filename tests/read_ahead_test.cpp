// ReadAhead: a stream read on a second thread, one chunk ahead of its consumer (sha256 of archives).
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "base/read_ahead.hpp"

using namespace cudnn_install;

namespace {

constexpr std::size_t kChunk = ReadAhead::kChunkBytes;

std::string pattern(std::size_t size) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 131 + i / kChunk) % 251);
  return s;
}

std::string read_through(ReadAhead& reader, std::size_t* chunks = nullptr) {
  std::string all;
  for (auto chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
    all.append(chunk.data(), chunk.size());
    if (chunks) ++*chunks;
  }
  return all;
}

// Serves `good` bytes, then fails as a disk would: istream turns the exception into badbit.
class FailingBuffer : public std::streambuf {
 public:
  explicit FailingBuffer(std::string good) : good_(std::move(good)) {
    setg(good_.data(), good_.data(), good_.data() + good_.size());
  }

 protected:
  int_type underflow() override { throw std::runtime_error("I/O error"); }

 private:
  std::string good_;
};

}  // namespace

TEST(ReadAhead, GivesEveryByteInOrderAtEachChunkBoundary) {
  for (std::size_t size :
       {std::size_t{0}, std::size_t{1}, kChunk - 1, kChunk, kChunk + 1, 2 * kChunk, 2 * kChunk + 7}) {
    std::string data = pattern(size);
    std::istringstream in(data);
    ReadAhead reader(in);
    std::size_t chunks = 0;
    EXPECT_TRUE(read_through(reader, &chunks) == data) << size;
    EXPECT_EQ(chunks, (size + kChunk - 1) / kChunk) << size;
    EXPECT_TRUE(reader.reached_end()) << size;
    EXPECT_TRUE(reader.next().empty()) << "asked again after the end, size " << size;
  }
}

TEST(ReadAhead, AReadErrorIsNotTheEnd) {
  std::string good = pattern(kChunk + 10);
  FailingBuffer buffer(good);
  std::istream in(&buffer);
  ReadAhead reader(in);
  std::string got = read_through(reader);
  EXPECT_FALSE(reader.reached_end());
  EXPECT_TRUE(good.starts_with(got)) << "what came before the error is what the stream held";
}

TEST(ReadAhead, AConsumerThatStopsEarlyDoesNotHang) {
  std::string data = pattern(5 * kChunk);
  std::istringstream in(data);
  {
    ReadAhead reader(in);
    ASSERT_EQ(reader.next().size(), kChunk);
  }  // the destructor stops the reader, which is waiting for a slot (a hang here is the ctest TIMEOUT)
  // It stopped where it was, two slots ahead of the consumer at most, instead of reading on to the end.
  in.clear();
  EXPECT_LE(static_cast<std::size_t>(in.tellg()), 3 * kChunk);
  EXPECT_GE(static_cast<std::size_t>(in.tellg()), kChunk);
}
