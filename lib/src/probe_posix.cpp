// The runtime probe's child process (POSIX): this program re-run as "__probe LIB" with
// posix_spawn, its answer read from a pipe; a crash of the library kills only the child.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "cudnn_install/verify.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

}  // namespace

fs::path current_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

ProbeResult probe_in_child(const fs::path& self_exe, const fs::path& library) {
  ProbeResult r;
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) {
    r.detail = std::string("cannot start the probe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, err[0]);
  std::string exe = self_exe.string(), lib = library.string();
  const char* argv[] = {exe.c_str(), "__probe", lib.c_str(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  std::string answer = rc == 0 ? read_all(out[0]) : std::string();
  std::string errors = rc == 0 ? read_all(err[0]) : std::string();
  close(out[0]);
  close(err[0]);
  int status = 0;
  if (rc != 0 || waitpid(pid, &status, 0) < 0) {
    r.detail = "cannot start the probe " + exe + ": " + std::strerror(rc ? rc : errno);
    return r;
  }
  if (WIFSIGNALED(status)) {
    r.load = ProbeResult::Load::Crashed;
    r.detail = std::string("the library crashed the probe process (") + strsignal(WTERMSIG(status)) + ")" +
               (errors.empty() ? "" : ": " + errors.substr(0, 400));
    return r;
  }
  auto json = nlohmann::json::parse(answer, nullptr, false);
  if (json.is_discarded()) {
    r.detail = "the probe answered nothing readable" + (errors.empty() ? std::string() : ": " + errors.substr(0, 400));
    return r;
  }
  return probe_from_json(json);
}

}  // namespace cudnn_install
