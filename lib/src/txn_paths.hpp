// Where the transaction keeps its files, relative to the toolkit root (see txn.hpp).
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>

namespace cudnn_install::txn_paths {

std::filesystem::path journal(const std::filesystem::path& root);
std::filesystem::path history_file(const std::filesystem::path& root, const std::string& id);
std::string backup_dir(const std::string& id);                 // root-relative
std::string backup_for(const std::string& id, std::size_t n);  // root-relative
// Where step n keeps the old file of `target`: backup/<id>/<n>, or, for a target outside the
// toolkit (the loader configuration), beside it, so the move is a rename on one filesystem.
std::string backup_for_target(const std::string& target, const std::string& id, std::size_t n);
std::string temp_for(const std::string& target, const std::string& id, std::size_t n);  // beside the target

}  // namespace cudnn_install::txn_paths
