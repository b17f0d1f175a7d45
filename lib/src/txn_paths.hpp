// Where the transaction keeps its files, relative to the toolkit root (see txn.hpp).
#pragma once
#include <filesystem>
#include <string>

#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/journal.hpp"

namespace cudnn_install {

namespace txn_paths {

std::filesystem::path journal(const std::filesystem::path& root);
std::filesystem::path history_file(const std::filesystem::path& root, const std::string& id);
std::string backup_dir(const std::string& id);                                          // root-relative
std::string backup_for(const std::string& id, std::size_t n);                           // root-relative
std::string temp_for(const std::string& target, const std::string& id, std::size_t n);  // beside the target
std::string utc_now();

}  // namespace txn_paths

// Shared by apply (automatic rollback) and recovery: undo the steps, remove the empty
// directories the transaction created and its backup directory.
Result<void> finish_undo(FileSystem& fs, const std::filesystem::path& root, const BeginRecord& begin, EnvStore* env);
// The registry half of a transaction (txn_env.cpp): make the edit, and put the old value back
// when the value is still the one the edit wrote (so undoing twice changes nothing).
Result<void> apply_env_edit(EnvStore* env, const EnvEdit& edit);
Result<void> undo_env_edit(EnvStore* env, const BeginRecord& begin);
// Moves a committed journal into history/ and prunes transactions beyond kKeptTransactions.
Result<void> file_committed(FileSystem& fs, const std::filesystem::path& root, const std::string& id);

}  // namespace cudnn_install
