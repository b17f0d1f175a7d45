#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
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

}  // namespace

Result<std::unique_ptr<StateLock>> acquire_state_lock(const fs::path& root) {
  TRY_ASSIGN(auto lock_file, prepare_lock_file(root));
  const fs::path& path = lock_file;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return fail(ErrorCode::Io, "cannot open '" + path.string() + "': " + std::strerror(errno), path.string());
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
