// Errors are values: every library boundary returns Result<T>.
#pragma once
#include <expected>
#include <string>
#include <utility>

namespace cudnn_install {

// What kind of failure; each maps to one documented exit code (see exit_code_for).
enum class ErrorCode {
  Usage,             // the command line is wrong
  BadName,           // the archive's file name matches no known grammar
  BadArchive,        // corrupt, truncated, unreadable or incomplete archive
  UnsafeEntry,       // an entry that could write outside the tree or is not a plain file/link
  VersionMismatch,   // name, header and manifest disagree
  IntegrityFailure,  // sha256 differs from the known value
  NoToolkit,         // no CUDA toolkit found, or several and none chosen
  CudaMismatch,      // archive built for another CUDA major or OS
  Conflict,          // locked by another run, files in use, unfinished transaction
  Io,                // a filesystem operation failed (the change was rolled back)
  VerifyFailed,      // the installed library does not work
  NothingToUndo,     // --rollback with no transaction to undo
  EnvLimit,          // the PATH change would break a limit of the system (length)
  NoRelease,         // no cuDNN release matches the version, CUDA major and platform asked for
  Network,           // a download failed: no connection, an HTTP error, a dropped transfer
  Interrupted,       // SIGINT, Ctrl-C, Ctrl-Break: stopped and rolled back (interrupt.hpp)
  Terminated,        // SIGTERM, the console closed: stopped and rolled back
  HungUp,            // SIGHUP: stopped and rolled back
};

struct Error {
  ErrorCode code;
  std::string message;  // for people: what is wrong and what to do
  std::string subject;  // the path or entry it concerns, may be empty
};

template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(ErrorCode code, std::string message, std::string subject = {}) {
  return std::unexpected(Error{code, std::move(message), std::move(subject)});
}

// Stable exit codes, documented in README.md.
enum class ExitCode : int {
  Ok = 0,
  Usage = 1,
  Refused = 2,       // bad input: name, archive, safety, version, integrity, CUDA mismatch
  Conflict = 3,      // locked, in use, no/ambiguous toolkit
  IoRolledBack = 4,  // I/O failure; the tree was restored
  VerifyFailed = 5,
  NothingToDo = 6,
  // A signal stopped the command; what it had begun was rolled back (128 + the signal's number,
  // as a shell reports a process the signal killed; the same numbers on Windows).
  HungUp = 129,       // SIGHUP
  Interrupted = 130,  // SIGINT; Ctrl-C or Ctrl-Break on Windows
  Terminated = 143,   // SIGTERM; the console window closed, logoff or shutdown on Windows
};

ExitCode exit_code_for(ErrorCode code);
const char* to_string(ErrorCode code);

}  // namespace cudnn_install
