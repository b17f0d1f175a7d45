// `cudnn-install status` as a library operation: the toolkits (every one found, or the one of
// --cuda-root), the cuDNN each holds, this tool's transactions there, and what recovery finished
// first; and its renderers, text and JSON (the CLI prints them).
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudnn_install/error.hpp"
#include "cudnn_install/session.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install {

struct ToolkitStatus {
  Toolkit toolkit;
  std::string cudnn_version;              // "" when none
  std::vector<HistoryItem> transactions;  // oldest first; the last is what --rollback undoes
  bool pending_journal = false;           // still there after recovery: it could not be finished
  std::string path_state;                 // env_state (env_step.hpp)
  std::vector<std::string> cleaned;       // what recovery removed of an interrupted run
  // State that could not be recovered or read (a damaged journal, a record that cannot be
  // trusted): the command's exit code; what could be read is shown all the same.
  std::vector<Error> errors;
};

struct StatusReport {
  std::vector<ToolkitStatus> toolkits;
  // Several toolkits found: the one the other commands take without --cuda-root, or why they need it.
  std::optional<Result<Toolkit>> default_choice;
};

// Opens a session on a toolkit (lock, recovery), for one with an interrupted transaction or its
// debris: status finishes it first, as every command that may write does.
using OpenSessionFn = std::function<Result<Session>(const std::filesystem::path& root)>;
// `search.cuda_root` set: that toolkit only (an error when it is not one); else every toolkit found.
Result<StatusReport> status(const ToolkitSearch& search, const OpenSessionFn& open);

// One toolkit, as `status --json` lists it (docs/schema) and as text.
nlohmann::json status_to_json(const ToolkitStatus& status);
std::string render_status_text(const ToolkitStatus& status);

}  // namespace cudnn_install
