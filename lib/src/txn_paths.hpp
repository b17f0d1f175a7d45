// Where the transaction keeps its files, relative to the toolkit root (see txn.hpp).
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

namespace cudnn_install::txn_paths {

std::filesystem::path journal(const std::filesystem::path& root);
std::filesystem::path history_file(const std::filesystem::path& root, const std::string& id);
std::string backup_dir(const std::string& id);                                          // root-relative
std::string backup_for(const std::string& id, std::size_t n);                           // root-relative
std::string temp_for(const std::string& target, const std::string& id, std::size_t n);  // beside the target

}  // namespace cudnn_install::txn_paths
