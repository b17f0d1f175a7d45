// What cudnn-install knows of the files it put into a toolkit, so that installing the same archive
// again need not read them to see that they are identical: each file's identity (device, inode,
// size, modification and change time) and its CRC-32, in <root>/.cudnn-install/stamps.json.
//
// A stamp stands for the file's bytes only while the file's identity is exactly the stamped one
// (any write moves the change time, which no program can set back) and only if the file had last
// changed before the stamp was taken: a write in the same tick of the filesystem clock as the
// reading could otherwise leave the change time as it was (git's "racily clean" files). The
// stamps are a cache: lost, damaged or stale, they cost a reading of the files and nothing else.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"

namespace cudnn_install {

struct FileStamp {
  FileIdentity identity;  // taken before the file was read
  std::uint32_t crc32 = 0;
};

struct FileStamps {
  std::map<std::string, FileStamp> files;  // root-relative target path -> stamp
  std::int64_t taken_ns = 0;               // the filesystem clock before any file was read

  // The stamped CRC-32, when `now` (the file's identity as it is) says the file is unchanged.
  std::optional<std::uint32_t> crc_if_unchanged(const std::string& target, const FileIdentity& now) const;
};

// The toolkit's stamps; none when the file is missing or damaged.
FileStamps read_file_stamps(FileSystem& fs, const std::filesystem::path& root);

// Stamps these root-relative files and replaces stamps.json. A file the transaction just wrote
// (`written`: its identity when written under its temporary name, and its CRC-32) is not read
// again while it is provably the same file with the same bytes (see unchanged_since_written),
// nor is one whose earlier stamp still counts; the others are read once. Files that changed in
// the same clock tick as the stamping are left out: they will be read next time. Returns how
// many were stamped.
Result<std::size_t> stamp_files(FileSystem& fs, const std::filesystem::path& root,
                                const std::vector<std::string>& targets,
                                const std::map<std::string, FileStamp>& written = {});

// A file written under a temporary name (which no other program uses) and then renamed into
// place still holds what was written when it is the same inode with the same size and
// modification time, and its last change (the rename) came in a later clock tick than the
// writing: a write after the rename but in the writing's own tick would leave the modification
// time as it was, and is caught by that second condition.
bool unchanged_since_written(const FileIdentity& written, const FileIdentity& now);

// For scan_tree: the CRC-32 of a target from its stamp, or nullopt (then the file is read).
using KnownCrc =
    std::function<std::optional<std::uint32_t>(const std::string& target, const std::filesystem::path& full_path)>;
KnownCrc known_crc_from(FileSystem& fs, const FileStamps& stamps);

}  // namespace cudnn_install
