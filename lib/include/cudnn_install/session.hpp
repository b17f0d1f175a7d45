// What every command that may write holds while it works on a toolkit: the state lock, the
// filesystem and registry it writes through, the signal handlers, and what opening it finished of
// an interrupted earlier run. Opening one is the first step of install, --rollback, uninstall and
// status: take the lock, then recover (txn.hpp's recover()).
#pragma once
#include <filesystem>
#include <functional>
#include <memory>

#include "cudnn_install/env.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/state_lock.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install {

struct Session {
  std::unique_ptr<StateLock> lock;
  std::unique_ptr<FileSystem> fs;
  std::unique_ptr<EnvStore> env;  // the registry on Windows; nullptr on Linux
  Recovery recovered;             // what opening it finished of an interrupted earlier run
  std::unique_ptr<Interrupts> interrupts;
};

// `interrupts` are caught by the caller before this is called, so that no signal ends a recovery
// half-way. `locked` runs once the lock is held and before recovery (the CLI starts its log in the
// state directory there, so that what recovery does is logged).
Result<Session> open_session(const std::filesystem::path& root, std::unique_ptr<Interrupts> interrupts,
                             const std::function<void(const StateLock&)>& locked = {});

}  // namespace cudnn_install
