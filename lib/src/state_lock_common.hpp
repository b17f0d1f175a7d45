// Shared by both platforms' acquire_state_lock (state_lock.cpp).
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

// The state directory is used only when it is a real directory (not a symlink or junction) owned
// by the user running the tool or by root, and not writable by group or others: whoever else could
// write there could plant links that lead the tool's writes outside the toolkit. Creates it (0755)
// when absent. A Conflict (exit 3) that says what is wrong and what to do otherwise.
// (Platform code: state_lock_posix.cpp, state_lock_win32.cpp.)
Result<void> open_state_dir(const std::filesystem::path& root);
// Creates (or checks) the state directory and returns the lock file's path.
Result<std::filesystem::path> prepare_lock_file(const std::filesystem::path& root);
// The error for a state directory or state file that cannot be trusted; `why` completes
// "'<path>' ..." (e.g. "is a symbolic link").
std::unexpected<Error> untrusted_state(const std::filesystem::path& path, const std::string& why);
// The error for a lock held by a live process.
std::unexpected<Error> lock_held(const std::filesystem::path& root, const std::filesystem::path& lock,
                                 std::optional<long> holder);

}  // namespace cudnn_install
