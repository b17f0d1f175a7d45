// Who may write the state directory on Windows, where its owner and access control list stand in
// for POSIX's owner and mode bits (state_lock_win32.cpp).
#pragma once
#include <windows.h>

#include <filesystem>
#include <memory>

#include "cudnn_install/error.hpp"

namespace cudnn_install::win32 {

// A security descriptor for a new state directory that does not inherit the toolkit's ACL (a
// toolkit under C:\ inherits "Authenticated Users: Modify"): SYSTEM, the Administrators and the
// user running the tool may change it, the Users may read it. Null when it cannot be made (the
// directory then inherits, and check_state_dir_acl judges it as any other).
using SecurityDescriptor = std::unique_ptr<void, decltype(&LocalFree)>;
SecurityDescriptor safe_state_dir_descriptor();

// The state directory is used only when its owner is the user running the tool, the
// Administrators, SYSTEM or TrustedInstaller, and no ACE lets a group of every user (Everyone,
// Authenticated Users, Users, Interactive, Anonymous) create, delete or re-permission anything in
// it. A Conflict that names who may write it and the icacls command that fixes it otherwise.
Result<void> check_state_dir_acl(const std::filesystem::path& dir);

}  // namespace cudnn_install::win32
