// Which directory a toolkit candidate really is: two candidates with the same identity are one toolkit.
#pragma once
#include <filesystem>
#include <string>

namespace cudnn_install {

// POSIX: the real path (symlinks resolved). Windows: the final path through junctions and symlinks,
// lowercased, since names there compare without case. Empty when the directory cannot be resolved.
std::string toolkit_dir_identity(const std::filesystem::path& dir);

}  // namespace cudnn_install
