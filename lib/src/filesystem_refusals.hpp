// Why open_for_append (filesystem.hpp) refuses what is at a path: the same words on every platform.
#pragma once
#include <filesystem>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

// A FIFO, a device or a directory: appending would block, write to hardware or fail.
inline std::unexpected<Error> not_a_plain_file(const std::filesystem::path& path) {
  return fail(ErrorCode::Conflict, "'" + path.string() + "' is not a plain file: nothing is appended to it",
              path.string());
}

// A hard link another user made to a file of theirs or of the system's (/etc/shadow, say).
inline std::unexpected<Error> has_other_names(const std::filesystem::path& path) {
  return fail(
      ErrorCode::Conflict,
      "'" + path.string() + "' has other names (hard links) that may be another file's: nothing is appended to it",
      path.string());
}

}  // namespace cudnn_install
