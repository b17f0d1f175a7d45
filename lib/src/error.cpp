#include "cudnn_install/error.hpp"

namespace cudnn_install {

ExitCode exit_code_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::Usage:
      return ExitCode::Usage;
    case ErrorCode::BadName:
    case ErrorCode::BadArchive:
    case ErrorCode::UnsafeEntry:
    case ErrorCode::VersionMismatch:
    case ErrorCode::IntegrityFailure:
    case ErrorCode::CudaMismatch:
    case ErrorCode::EnvLimit:
    case ErrorCode::NoRelease:
      return ExitCode::Refused;
    case ErrorCode::NoToolkit:
    case ErrorCode::Conflict:
      return ExitCode::Conflict;
    case ErrorCode::Io:
    case ErrorCode::Network:
      return ExitCode::IoRolledBack;
    case ErrorCode::VerifyFailed:
      return ExitCode::VerifyFailed;
    case ErrorCode::NothingToUndo:
      return ExitCode::NothingToDo;
    case ErrorCode::Interrupted:
      return ExitCode::Interrupted;
    case ErrorCode::Terminated:
      return ExitCode::Terminated;
    case ErrorCode::HungUp:
      return ExitCode::HungUp;
  }
  return ExitCode::Usage;
}

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::Usage:
      return "usage";
    case ErrorCode::BadName:
      return "bad-name";
    case ErrorCode::BadArchive:
      return "bad-archive";
    case ErrorCode::UnsafeEntry:
      return "unsafe-entry";
    case ErrorCode::VersionMismatch:
      return "version-mismatch";
    case ErrorCode::IntegrityFailure:
      return "integrity-failure";
    case ErrorCode::NoToolkit:
      return "no-toolkit";
    case ErrorCode::CudaMismatch:
      return "cuda-mismatch";
    case ErrorCode::Conflict:
      return "conflict";
    case ErrorCode::Io:
      return "io";
    case ErrorCode::VerifyFailed:
      return "verify-failed";
    case ErrorCode::NothingToUndo:
      return "nothing-to-undo";
    case ErrorCode::EnvLimit:
      return "env-limit";
    case ErrorCode::NoRelease:
      return "no-release";
    case ErrorCode::Network:
      return "network";
    case ErrorCode::Interrupted:
      return "interrupted";
    case ErrorCode::Terminated:
      return "terminated";
    case ErrorCode::HungUp:
      return "hung-up";
  }
  return "unknown";
}

}  // namespace cudnn_install
