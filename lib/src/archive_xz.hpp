// The multi-threaded xz path of archive_tar.cpp (see archive_xz.cpp).
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>

struct archive;

namespace cudnn_install {

class XzSource;
struct XzSourceDeleter {
  void operator()(XzSource* s) const;
};
using XzSourcePtr = std::unique_ptr<XzSource, XzSourceDeleter>;

// Opens `a` (a reader that supports the tar format) on the decoded stream of the xz file at path,
// storing archive_read_open's result in *rc. The source must outlive `a`. nullptr: not an xz file
// (or the decoder could not start), so open it the usual way.
XzSourcePtr open_xz_threaded(archive* a, const std::filesystem::path& path, int* rc);
// Bytes of the xz file decoded so far.
std::uint64_t xz_bytes_consumed(const XzSource& source);

}  // namespace cudnn_install
