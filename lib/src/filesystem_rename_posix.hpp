// The rename that never replaces (filesystem_posix.cpp), with the system calls it makes passed in,
// so that a test can play a filesystem without RENAME_NOREPLACE or without hard links, which the
// machines that run the tests do not have.
#pragma once
#include <filesystem>
#include <functional>

#include "cudnn_install/error.hpp"

namespace cudnn_install::posix {

// Each returns 0 or -1 with errno set, as the system call does.
struct NoReplaceCalls {
  std::function<int(const char* from, const char* to)> rename_noreplace;  // renameat2(RENAME_NOREPLACE)
  std::function<int(const char* from, const char* to)> link;              // linkat(2), no flags
  std::function<int(const char* path)> unlink;
  std::function<int(const char* path)> lstat;  // 0 when something is there
  std::function<int(const char* from, const char* to)> rename;
};

NoReplaceCalls system_no_replace_calls();

Result<void> rename_no_replace(const std::filesystem::path& from, const std::filesystem::path& to,
                               const NoReplaceCalls& calls = system_no_replace_calls());

}  // namespace cudnn_install::posix
