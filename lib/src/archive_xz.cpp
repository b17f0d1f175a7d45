// An .xz file decoded by liblzma's multi-threaded decoder and handed to libarchive as a plain tar
// stream. libarchive's own xz filter decodes on one core; xz files written in blocks (xz -T, and
// every xz >= 5.4 compressing with threads) decode here on all of them. Single-block files decode
// as before. Memory stays bounded: beyond kThreadingMemory the decoder falls back to one thread.
#include <archive.h>
#include <lzma.h>

#include <cerrno>
#include <cstdio>
#include <thread>
#include <vector>

#include "archive_xz.hpp"

namespace cudnn_install {
namespace {

constexpr std::uint64_t kThreadingMemory = 256u << 20;
constexpr std::size_t kBufferBytes = 1 << 20;

}  // namespace

class XzSource {
 public:
  XzSource(std::FILE* file) : file_(file), in_(kBufferBytes), out_(kBufferBytes) {}
  ~XzSource() {
    lzma_end(&stream_);
    std::fclose(file_);
  }

  bool start() {
    lzma_mt mt{};
    mt.flags = LZMA_CONCATENATED;  // as `xz -d`: several streams one after the other
    mt.threads = std::max(1u, std::thread::hardware_concurrency());
    mt.memlimit_threading = kThreadingMemory;
    mt.memlimit_stop = UINT64_MAX;
    return lzma_stream_decoder_mt(&stream_, &mt) == LZMA_OK;
  }

  std::uint64_t consumed() const { return stream_.total_in; }

  la_ssize_t read(archive* a, const void** buffer) {
    while (!finished_) {
      if (stream_.avail_in == 0 && !input_done_) fill();
      stream_.next_out = out_.data();
      stream_.avail_out = out_.size();
      lzma_ret ret = lzma_code(&stream_, input_done_ ? LZMA_FINISH : LZMA_RUN);
      std::size_t produced = out_.size() - stream_.avail_out;
      if (ret == LZMA_STREAM_END)
        finished_ = true;
      else if (ret != LZMA_OK)
        return fail(a, ret);
      if (produced > 0) {
        *buffer = out_.data();
        return static_cast<la_ssize_t>(produced);
      }
    }
    return 0;
  }

 private:
  void fill() {
    std::size_t n = std::fread(in_.data(), 1, in_.size(), file_);
    input_done_ = n < in_.size();
    stream_.next_in = in_.data();
    stream_.avail_in = n;
  }

  la_ssize_t fail(archive* a, lzma_ret ret) {
    const char* why = ret == LZMA_DATA_ERROR     ? "corrupt xz data"
                      : ret == LZMA_BUF_ERROR    ? "the xz data ends too early"
                      : ret == LZMA_FORMAT_ERROR ? "not xz data"
                      : ret == LZMA_MEM_ERROR    ? "out of memory"
                                                 : "xz decoder error";
    archive_set_error(a, EILSEQ, "%s (liblzma %d)", why, static_cast<int>(ret));
    return -1;
  }

  std::FILE* file_;
  lzma_stream stream_ = LZMA_STREAM_INIT;
  std::vector<std::uint8_t> in_, out_;
  bool input_done_ = false, finished_ = false;
};

void XzSourceDeleter::operator()(XzSource* s) const { delete s; }
std::uint64_t xz_bytes_consumed(const XzSource& source) { return source.consumed(); }

namespace {

la_ssize_t read_callback(archive* a, void* self, const void** buffer) {
  return static_cast<XzSource*>(self)->read(a, buffer);
}

bool starts_with_xz_magic(std::FILE* f) {
  unsigned char magic[6] = {};
  bool xz = std::fread(magic, 1, 6, f) == 6 && magic[0] == 0xFD && magic[1] == '7' && magic[2] == 'z' &&
            magic[3] == 'X' && magic[4] == 'Z' && magic[5] == 0;
  std::fseek(f, 0, SEEK_SET);  // (the caller checks the stream when it reads)
  return xz;
}

}  // namespace

XzSourcePtr open_xz_threaded(archive* a, const std::filesystem::path& path, int* rc) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return nullptr;  // libarchive's own open reports why
  if (!starts_with_xz_magic(f)) {
    std::fclose(f);
    return nullptr;
  }
  XzSourcePtr source(new XzSource(f));
  if (!source->start()) return nullptr;
  *rc = archive_read_open(a, source.get(), nullptr, read_callback, nullptr);
  return source;
}

}  // namespace cudnn_install
