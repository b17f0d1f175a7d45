// The process runner on POSIX: posix_spawn (posix_spawnp for a bare name), stdin from /dev/null,
// stdout and stderr through two pipes that poll() drains together until the deadline.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/process.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace cudnn_install {
namespace {

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

Result<Pipe> make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return fail(ErrorCode::Io, std::string("cannot create a pipe to a child process: ") + std::strerror(errno));
  Pipe p;
  p.read = Fd(fds[0]);
  p.write = Fd(fds[1]);
  return p;
}

// posix_spawn's file actions, destroyed in every path out.
class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

Result<pid_t> spawn(const std::vector<std::string>& argv, const Pipe& out, const Pipe& err) {
  FileActions actions;
  ::posix_spawn_file_actions_addopen(actions.get(), 0, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(actions.get(), out.write.get(), 1);
  ::posix_spawn_file_actions_adddup2(actions.get(), err.write.get(), 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  bool search = argv[0].find('/') == std::string::npos;
  int rc = search ? ::posix_spawnp(&pid, args[0], actions.get(), nullptr, args.data(), environ)
                  : ::posix_spawn(&pid, args[0], actions.get(), nullptr, args.data(), environ);
  if (rc != 0) return fail(ErrorCode::Io, "cannot start '" + argv[0] + "': " + std::strerror(rc), argv[0]);
  return pid;
}

// Reads whatever the pipe has; false at its end.
bool read_some(int fd, std::string& into, std::size_t limit) {
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  std::size_t keep = std::min(static_cast<std::size_t>(n), limit - std::min(limit, into.size()));
  into.append(buffer, keep);
  return true;
}

// Both pipes at once until both ended; false when the deadline came first.
bool drain(Pipe& out, Pipe& err, ProcessOutput& output, Clock::time_point deadline, std::size_t limit) {
  pollfd fds[2] = {{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}};
  std::string* into[2] = {&output.out, &output.err};
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    int ready = ::poll(fds, 2, static_cast<int>(left));
    if (ready < 0 && errno != EINTR) return false;
    for (int i = 0; i < 2 && ready > 0; ++i)
      if (fds[i].fd >= 0 && fds[i].revents != 0 && !read_some(fds[i].fd, *into[i], limit))
        fds[i].fd = -1;  // ended: poll() skips a negative descriptor
  }
  return true;
}

// The child's status; killed at the deadline when it is still running then.
int reap(pid_t pid, Clock::time_point deadline, bool& timed_out) {
  int status = 0;
  while (!timed_out) {
    pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return status;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // its pipes are closed: it is ending
  }
  timed_out = true;
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

Result<ProcessOutput> run_process(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty() || argv[0].empty()) return fail(ErrorCode::Usage, "no program to run");
  TRY_ASSIGN(Pipe out, make_pipe());
  TRY_ASSIGN(Pipe err, make_pipe());
  auto deadline = Clock::now() + options.timeout;
  TRY_ASSIGN(pid_t pid, spawn(argv, out, err));
  out.write.reset();  // the child holds the only write ends now: its exit ends the pipes
  err.write.reset();
  ProcessOutput output;
  bool timed_out = !drain(out, err, output, deadline, options.max_output_bytes);
  int status = reap(pid, deadline, timed_out);
  if (timed_out) {
    output.end = ProcessOutput::End::TimedOut;
  } else if (WIFSIGNALED(status)) {
    output.end = ProcessOutput::End::Crashed;
    output.code = WTERMSIG(status);
  } else {
    output.code = WEXITSTATUS(status);
  }
  return output;
}

class PosixProcessRunner final : public ProcessRunner {
 public:
  Result<ProcessOutput> run(const std::vector<std::string>& argv, const RunOptions& options) override {
    return run_process(argv, options);
  }
};

}  // namespace

std::string ProcessOutput::describe() const {
  switch (end) {
    case End::Exited:
      return "exit status " + std::to_string(code);
    case End::Crashed:
      return "signal " + std::to_string(code) + ", " + ::strsignal(static_cast<int>(code));
    case End::TimedOut:
      return "killed after running past its time limit";
  }
  return "unknown";
}

std::unique_ptr<ProcessRunner> make_process_runner() { return std::make_unique<PosixProcessRunner>(); }

fs::path current_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

bool util::process_running(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;  // EPERM: another user's process
}

}  // namespace cudnn_install
