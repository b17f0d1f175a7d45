// The state lock on Windows: LockFileEx on a byte far past the PID the file holds, so the lock is
// released by the system when the holder dies and the PID stays readable by the next run.
#include <windows.h>

#include <string>

#include "base/try.hpp"
#include "base/win32_util.hpp"
#include "cudnn_install/state_dir.hpp"
#include "cudnn_install/state_lock.hpp"
#include "state_dir_acl_win32.hpp"
#include "state_lock_common.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

constexpr DWORD kLockOffset = 0x40000000;  // the locked byte; the PID text lives at offset 0

std::optional<long> read_pid(HANDLE h) {
  char buf[32] = {};
  DWORD n = 0;
  OVERLAPPED at{};
  if (!ReadFile(h, buf, sizeof buf - 1, &n, &at) || n == 0) return std::nullopt;
  long pid = std::strtol(buf, nullptr, 10);
  return pid > 0 ? std::optional(pid) : std::nullopt;
}

class Win32StateLock final : public StateLock {
 public:
  Win32StateLock(HANDLE h, std::optional<long> stale) : h_(h), stale_(stale) {}
  ~Win32StateLock() override {
    OVERLAPPED at{};
    at.Offset = kLockOffset;
    SetFilePointer(h_.get(), 0, nullptr, FILE_BEGIN);
    SetEndOfFile(h_.get());
    UnlockFileEx(h_.get(), 0, 1, 0, &at);
  }
  std::optional<long> stale_holder() const override { return stale_; }

 private:
  win32::Handle h_;
  std::optional<long> stale_;
};

// The lock file is opened as itself, never through a symlink or junction, and only a plain file
// with no other hard link is written: the PID written into it would truncate any other file.
Result<HANDLE> open_lock_file(const fs::path& path) {
  HANDLE h = CreateFileW(path.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr,
                         OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (h == INVALID_HANDLE_VALUE)
    return fail(ErrorCode::Io, "cannot open '" + path.string() + "': " + win32::error_text(GetLastError()),
                path.string());
  BY_HANDLE_FILE_INFORMATION info;
  Result<void> trusted;
  if (!GetFileInformationByHandle(h, &info))
    trusted = fail(ErrorCode::Io, "cannot inspect '" + path.string() + "': " + win32::error_text(GetLastError()),
                   path.string());
  else if (info.dwFileAttributes & (FILE_ATTRIBUTE_REPARSE_POINT | FILE_ATTRIBUTE_DIRECTORY))
    trusted = untrusted_state(path, "is a symbolic link, a junction or a directory");
  else if (info.nNumberOfLinks != 1)
    trusted = untrusted_state(path, "has other hard links");
  if (!trusted) {
    CloseHandle(h);
    return std::unexpected(trusted.error());
  }
  return h;
}

}  // namespace

// Windows: a junction or symlink is refused; the owner and the ACL stand in for POSIX's owner and
// mode. A new state directory gets an ACL of its own rather than the toolkit's.
Result<void> open_state_dir(const fs::path& root) {
  fs::path dir = state_dir(root);
  auto descriptor = win32::safe_state_dir_descriptor();
  SECURITY_ATTRIBUTES attributes_of_new{sizeof(SECURITY_ATTRIBUTES), descriptor.get(), FALSE};
  if (!CreateDirectoryW(dir.c_str(), descriptor ? &attributes_of_new : nullptr) &&
      GetLastError() != ERROR_ALREADY_EXISTS)
    return fail(ErrorCode::Io,
                "cannot create '" + dir.string() + "': " + win32::error_text(GetLastError()) + " (" +
                    std::string(win32::kElevationHint) + ")",
                dir.string());
  DWORD attributes = GetFileAttributesW(dir.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES)
    return fail(ErrorCode::Io, "cannot inspect '" + dir.string() + "': " + win32::error_text(GetLastError()),
                dir.string());
  if (attributes & FILE_ATTRIBUTE_REPARSE_POINT) return untrusted_state(dir, "is a symbolic link or a junction");
  if (!(attributes & FILE_ATTRIBUTE_DIRECTORY)) return untrusted_state(dir, "is not a directory");
  return win32::check_state_dir_acl(dir);
}

Result<std::unique_ptr<StateLock>> acquire_state_lock(const fs::path& root) {
  TRY_ASSIGN(auto lock_file, prepare_lock_file(root));
  const fs::path& path = lock_file;
  TRY_ASSIGN(HANDLE h, open_lock_file(path));
  OVERLAPPED at{};
  at.Offset = kLockOffset;
  if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
    auto holder = read_pid(h);
    CloseHandle(h);
    return lock_held(root, path, holder);
  }
  auto stale = read_pid(h);
  std::string pid = std::to_string(GetCurrentProcessId()) + "\n";
  DWORD written = 0;
  SetFilePointer(h, 0, nullptr, FILE_BEGIN);
  SetEndOfFile(h);
  WriteFile(h, pid.data(), static_cast<DWORD>(pid.size()), &written, nullptr);  // the PID is only a hint
  return std::make_unique<Win32StateLock>(h, stale);
}

}  // namespace cudnn_install
