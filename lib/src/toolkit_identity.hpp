// Which directory a toolkit candidate really is: two candidates with the same identity are one toolkit.
#pragma once
#include <filesystem>
#include <string>

namespace cudnn_install {

// POSIX: the real path (symlinks resolved). Windows: the final path through junctions and symlinks,
// lowercased, since names there compare without case. Empty when the directory cannot be resolved.
std::string toolkit_dir_identity(const std::filesystem::path& dir);

// Where the system really puts what is written under `path`: symlinks followed (on Windows also
// junctions, which std::filesystem there does not follow), for a path not there yet the real path
// of its nearest existing parent with the rest appended. Empty when it cannot be resolved.
std::filesystem::path real_path_of(const std::filesystem::path& path);

}  // namespace cudnn_install
