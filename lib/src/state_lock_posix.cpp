#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "base/try.hpp"
#include "cudnn_install/state_dir.hpp"
#include "cudnn_install/state_lock.hpp"
#include "state_lock_common.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::optional<long> read_pid(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  char* end = nullptr;
  long pid = std::strtol(buf, &end, 10);
  return pid > 0 ? std::optional(pid) : std::nullopt;
}

class PosixStateLock final : public StateLock {
 public:
  PosixStateLock(int fd, std::optional<long> stale) : fd_(fd), stale_(stale) {}
  ~PosixStateLock() override {
    if (::ftruncate(fd_, 0) != 0) { /* nothing to do: the lock is released by close anyway */
    }
    ::close(fd_);  // releases the flock
  }
  std::optional<long> stale_holder() const override { return stale_; }

 private:
  int fd_;
  std::optional<long> stale_;
};

// Only the user running the tool and root may have made what the tool trusts.
Result<void> check_owner(const fs::path& path, const struct stat& st) {
  if (st.st_uid != ::geteuid() && st.st_uid != 0)
    return untrusted_state(path, "belongs to user " + std::to_string(st.st_uid) + ", neither you nor root");
  return {};
}

// The lock file is opened without following a symlink, and only a plain file of ours is written:
// a link (hard or symbolic) to another file would let the PID written into it truncate that file.
Result<int> open_lock_file(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ELOOP) return untrusted_state(path, "is a symbolic link");
  if (fd < 0) return fail(ErrorCode::Io, "cannot open '" + path.string() + "': " + std::strerror(errno), path.string());
  struct stat st;
  Result<void> trusted;
  if (::fstat(fd, &st) != 0)
    trusted = fail(ErrorCode::Io, "cannot inspect '" + path.string() + "': " + std::strerror(errno), path.string());
  else if (!S_ISREG(st.st_mode))
    trusted = untrusted_state(path, "is not a regular file");
  else if (st.st_nlink != 1)
    trusted = untrusted_state(path, "has other hard links");
  else
    trusted = check_owner(path, st);
  if (!trusted) {
    ::close(fd);
    return std::unexpected(trusted.error());
  }
  return fd;
}

}  // namespace

Result<void> open_state_dir(const fs::path& root) {
  fs::path dir = state_dir(root);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return fail(ErrorCode::Io,
                "cannot create '" + dir.string() + "': " + std::strerror(errno) +
                    " (run with the rights to change the toolkit: root, or an administrator on Windows)",
                dir.string());
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0)
    return fail(ErrorCode::Io, "cannot inspect '" + dir.string() + "': " + std::strerror(errno), dir.string());
  if (S_ISLNK(st.st_mode)) return untrusted_state(dir, "is a symbolic link");
  if (!S_ISDIR(st.st_mode)) return untrusted_state(dir, "is not a directory");
  TRY(check_owner(dir, st));
  if ((st.st_mode & 022) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return untrusted_state(dir, std::string("is writable by group or others (mode ") + mode + ")");
  }
  return {};
}

Result<std::unique_ptr<StateLock>> acquire_state_lock(const fs::path& root) {
  TRY_ASSIGN(auto lock_file, prepare_lock_file(root));
  const fs::path& path = lock_file;
  TRY_ASSIGN(int fd, open_lock_file(path));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    auto holder = read_pid(fd);
    ::close(fd);
    return lock_held(root, path, holder);
  }
  auto stale = read_pid(fd);
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) { /* the PID is only a hint */
  }
  return std::make_unique<PosixStateLock>(fd, stale);
}

}  // namespace cudnn_install
