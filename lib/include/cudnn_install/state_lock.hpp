// One cudnn-install at a time per toolkit: an OS lock on <root>/.cudnn-install/lock that the
// kernel releases when the holder dies, so a stale lock of a dead process never blocks anyone.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

class StateLock {
 public:
  virtual ~StateLock() = default;
  // The PID written by an earlier holder that died without cleaning up, if any.
  virtual std::optional<long> stale_holder() const = 0;
};

// Creates the state directory if needed. A lock held by a live process is a Conflict whose
// message names that process's PID.
Result<std::unique_ptr<StateLock>> acquire_state_lock(const std::filesystem::path& root);

}  // namespace cudnn_install
