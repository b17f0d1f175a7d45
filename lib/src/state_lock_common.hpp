// Shared by both platforms' acquire_state_lock (state_lock.cpp).
#pragma once
#include <filesystem>
#include <optional>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

// Creates the state directory and returns the lock file's path.
Result<std::filesystem::path> prepare_lock_file(const std::filesystem::path& root);
// The error for a lock held by a live process.
std::unexpected<Error> lock_held(const std::filesystem::path& root, const std::filesystem::path& lock,
                                 std::optional<long> holder);

}  // namespace cudnn_install
