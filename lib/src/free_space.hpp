// Room on disk for what an install will write, asked of each filesystem it writes on, so that a
// full disk refuses the install before anything is written instead of failing half-way.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"

namespace cudnn_install {

// Kept free on every filesystem written to: the journal, state files and directories, and what
// other programs write meanwhile. Small, so that a nearly full disk still takes a small install.
inline constexpr std::uint64_t kSpaceMarginBytes = 1u << 20;

// What a file of `bytes` takes on a filesystem: its size rounded up to whole blocks.
std::uint64_t on_disk(std::uint64_t bytes, const FreeSpace& space);

// Adds up the new files to be written, per filesystem, and checks each against its free space.
class SpaceNeeded {
 public:
  explicit SpaceNeeded(FileSystem& fs) : fs_(fs) {}
  // A new file of `bytes` at `path` (its directory, or the nearest existing parent of it).
  void add(const std::filesystem::path& path, std::uint64_t bytes);
  // A refusal that names the filesystem, what would be written there and what is free.
  Result<void> check() const;

 private:
  struct OnOneFilesystem {
    FreeSpace space;
    std::filesystem::path example;  // a directory on it, for the message
    std::uint64_t bytes = 0;
  };
  FileSystem& fs_;
  std::map<std::uint64_t, OnOneFilesystem> by_device_;
};

// "the archive needs 8.0 MiB on the filesystem of '/x' (and 1.0 MiB kept free), 3.2 MiB are free".
std::string not_enough_space(const std::filesystem::path& where, std::uint64_t needed, std::uint64_t available);

}  // namespace cudnn_install
