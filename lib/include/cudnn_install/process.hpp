// Running another program, the one way the tool does it: the runtime probe (this program re-run
// in a child), `nvcc --version`, `nvidia-smi`, `ldconfig`. No shell: argv reaches the program as
// it is, so no path or name is ever parsed by one. Both of the child's output pipes are drained at
// once (a child that fills one pipe while the other is being read would block both), and a child
// that runs past its time is killed.
#pragma once
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

struct RunOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
  std::size_t max_output_bytes = 16u << 20;  // kept per pipe; the rest is read and dropped
};

struct ProcessOutput {
  enum class End { Exited, Crashed, TimedOut };
  End end = End::Exited;
  // Exited: the exit status. Crashed: the signal (POSIX) or the exception code (Windows).
  long code = 0;
  std::string out, err;

  bool succeeded() const { return end == End::Exited && code == 0; }
  // For messages: "exit status 3", "signal 6, Aborted", "exception 0xC0000005, access violation",
  // "killed after running past its time limit".
  std::string describe() const;
};

class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  // argv[0] is a path, or a bare name looked up on PATH; every argument is UTF-8. Fails only when
  // the program cannot be started at all; how it ended is in the output.
  virtual Result<ProcessOutput> run(const std::vector<std::string>& argv, const RunOptions& options) = 0;
};

// The processes of this machine (base/process_posix.cpp: posix_spawn; base/process_win32.cpp: CreateProcessW).
std::unique_ptr<ProcessRunner> make_process_runner();

// This program's own path, for re-running it (the runtime probe).
std::filesystem::path current_executable();

}  // namespace cudnn_install
