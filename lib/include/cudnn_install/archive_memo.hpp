// What cudnn-install remembers of the archives it installed into a toolkit, so that installing
// the same file again neither hashes nor decodes it: the file's identity, its sha256 and its
// listing, in <root>/.cudnn-install/archives.json (newest first, a few at most).
//
// The sha256 is reused only while the file's identity (device, inode, size, modification and
// change time) is exactly what it was when the file was hashed: a changed byte means a new change
// time. The listing is a function of the bytes, so it is as good as reading the archive again.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/archive_reader.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"

namespace cudnn_install {

struct ArchiveMemo {
  FileIdentity identity;
  std::string sha256;
  std::string time;  // when it was remembered, UTC
  Listing listing;   // files and symlinks, with CRC-32s, and the version header's text
};

inline constexpr std::size_t kRememberedArchives = 4;

// Remembered archives of this toolkit; an unreadable or damaged file counts as none.
std::vector<ArchiveMemo> read_archive_memos(FileSystem& fs, const std::filesystem::path& root);
// The memo of the file as it is now, if there is one.
std::optional<ArchiveMemo> find_archive_memo(FileSystem& fs, const std::filesystem::path& root,
                                             const std::filesystem::path& archive);
// Adds (or refreshes) one, replacing the file atomically (write a temporary, rename it).
Result<void> remember_archive(FileSystem& fs, const std::filesystem::path& root, ArchiveMemo memo);

}  // namespace cudnn_install
