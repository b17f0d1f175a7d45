// status (status.hpp): each toolkit's cuDNN and transactions, after recovery; text and JSON.
#include "cudnn_install/status.hpp"

#include <fmt/format.h>

#include "base/try.hpp"
#include "cudnn_install/env_step.hpp"
#include "cudnn_install/verify.hpp"

namespace cudnn_install {
namespace {

ToolkitStatus toolkit_status(const Toolkit& toolkit, const OpenSessionFn& open) {
  ToolkitStatus s;
  s.toolkit = toolkit;
  if (has_pending_journal(toolkit.root) || has_state_debris(toolkit.root)) {
    auto session = open(toolkit.root);  // recovers
    if (session)
      s.cleaned = session->recovered.cleaned;
    else
      s.errors.push_back(session.error());
  }
  auto history = read_history(*make_real_filesystem(), toolkit.root);
  if (history)
    s.transactions = std::move(*history);
  else
    s.errors.push_back(history.error());
  auto version = installed_cudnn_version(toolkit);
  s.cudnn_version = version ? version->to_string() : "";
  s.pending_journal = has_pending_journal(toolkit.root);
  s.path_state = env_state(toolkit);
  return s;
}

std::string found_by_text(const ToolkitStatus& s) {
  std::string also;
  for (const auto& source : s.toolkit.also_found_by) also += (also.empty() ? "" : ", ") + source;
  return s.toolkit.found_by + (also.empty() ? "" : " (also " + also + ")");
}

}  // namespace

Result<StatusReport> status(const ToolkitSearch& search, const OpenSessionFn& open) {
  std::vector<Toolkit> toolkits;
  if (search.cuda_root) {
    TRY_ASSIGN(auto toolkit, probe_toolkit(*search.cuda_root, "--cuda-root", search));
    toolkits.push_back(std::move(toolkit));
  } else {
    toolkits = find_toolkits(search);
  }
  StatusReport report;
  for (const auto& toolkit : toolkits) report.toolkits.push_back(toolkit_status(toolkit, open));
  if (!search.cuda_root && toolkits.size() > 1)
    report.default_choice = choose_found_toolkit(toolkits, search, ToolkitPurpose::Inspect);
  return report;
}

nlohmann::json status_to_json(const ToolkitStatus& s) {
  nlohmann::json history = nlohmann::json::array();
  for (const auto& h : s.transactions)
    history.push_back({{"id", h.id},
                       {"operation", h.operation},
                       {"archive", h.archive},
                       {"cudnn_version", h.cudnn_version},
                       {"time", h.time},
                       {"files", h.files},
                       {"path_entry", h.path_entry}});
  return {{"root", s.toolkit.root.string()},
          {"cuda_version", s.toolkit.version.to_string()},
          {"found_by", s.toolkit.found_by},
          {"also_found_by", s.toolkit.also_found_by},
          {"cudnn_version", s.cudnn_version.empty() ? nlohmann::json() : nlohmann::json(s.cudnn_version)},
          {"transactions", history},
          {"pending_journal", s.pending_journal},
          {"path_state", s.path_state},
          {"cleaned", s.cleaned}};
}

std::string render_status_text(const ToolkitStatus& s) {
  std::string text = fmt::format("toolkit  {}  (CUDA {}, found by {})\n", s.toolkit.root.string(),
                                 s.toolkit.version.to_string(), found_by_text(s));
  text +=
      "  cuDNN  " + (s.cudnn_version.empty() ? std::string("none") : s.cudnn_version) +
      (s.transactions.empty() && !s.cudnn_version.empty() ? "  (found in place; not installed by cudnn-install)" : "") +
      "\n";
  for (const auto& h : s.transactions)
    text += fmt::format("  {}  {} {} from {} ({} files){}\n", h.time, h.operation, h.cudnn_version, h.archive, h.files,
                        &h == &s.transactions.back() ? "  <- --rollback undoes this" : "");
  text += "  path   " + s.path_state + "\n";
  for (const auto& c : s.cleaned) text += "  cleaned  " + c + "\n";
  if (s.pending_journal) text += "  an interrupted transaction is pending: run any command to recover\n";
  return text;
}

}  // namespace cudnn_install
