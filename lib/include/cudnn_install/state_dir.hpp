// Where cudnn-install keeps its state in a toolkit (what is in it: txn.hpp).
#pragma once
#include <filesystem>

namespace cudnn_install {

inline constexpr const char* kStateDirName = ".cudnn-install";

std::filesystem::path state_dir(const std::filesystem::path& root);  // <root>/.cudnn-install
// Where a real install from a tar.xz copies the entries while inspecting it (inspect_and_spool).
std::filesystem::path spool_dir(const std::filesystem::path& root);

}  // namespace cudnn_install
