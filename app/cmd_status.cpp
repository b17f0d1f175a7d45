// `cudnn-install status`: toolkits, the cuDNN each holds, and this tool's transactions there.
#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"
#include "cudnn_install/verify.hpp"

namespace cudnn_install::cli {
namespace {

std::string installed_cudnn(const Toolkit& tk) {
  auto v = installed_cudnn_version(tk);
  return v ? v->to_string() : std::string();
}

// `rc` becomes the exit code of a state that could not be recovered or read (a record that cannot be
// trusted, a damaged journal: exit 3); what could be read is shown all the same.
nlohmann::json toolkit_status(const Toolkit& tk, const Options& o, int& rc) {
  nlohmann::json cleaned = nlohmann::json::array();
  if (has_pending_journal(tk.root) || has_state_debris(tk.root)) {
    auto session = open_session(tk.root, o);  // recovers, and says so
    if (!session) rc = report_error(session.error(), o);
    if (session) cleaned = session->recovered.cleaned;
  }
  auto fs = make_real_filesystem();
  nlohmann::json history = nlohmann::json::array();
  auto items = read_history(*fs, tk.root);
  if (!items) rc = report_error(items.error(), o);
  if (items)
    for (const auto& h : *items)
      history.push_back({{"id", h.id},
                         {"operation", h.operation},
                         {"archive", h.archive},
                         {"cudnn_version", h.cudnn_version},
                         {"time", h.time},
                         {"files", h.files},
                         {"path_entry", h.path_entry}});
  std::string cudnn = installed_cudnn(tk);
  return {{"root", tk.root.string()},
          {"cuda_version", tk.version.to_string()},
          {"found_by", tk.found_by},
          {"also_found_by", tk.also_found_by},
          {"cudnn_version", cudnn.empty() ? nlohmann::json() : nlohmann::json(cudnn)},
          {"transactions", history},
          {"pending_journal", has_pending_journal(tk.root)},
          {"path_state", env_state(tk)},
          {"cleaned", cleaned}};
}

std::string status_found_by_text(const nlohmann::json& tk) {
  std::string also;
  for (const auto& source : tk["also_found_by"]) also += (also.empty() ? "" : ", ") + source.get<std::string>();
  return tk["found_by"].get<std::string>() + (also.empty() ? "" : " (also " + also + ")");
}

// Several toolkits: which one the other commands take without --cuda-root, or that they need it.
void tell_status_choice(const std::vector<Toolkit>& toolkits, const ToolkitSearch& search, const Options& o) {
  if (toolkits.size() < 2) return;
  auto chosen = choose_found_toolkit(toolkits, search, ToolkitPurpose::Inspect);
  if (o.format == Format::Json) {
    if (chosen) answer()["toolkit_choice"] = toolkit_choice_json(*chosen);
    return;
  }
  if (chosen)
    std::cout << fmt::format("without --cuda-root, commands use {}  ({})\n", chosen->root.string(),
                             choice_text(*chosen));
  else
    std::cout << "several CUDA toolkits are installed: commands other than status need --cuda-root (or CUDA_PATH or "
                 "CUDA_HOME set) to choose one\n";
}

void print_text(const nlohmann::json& tk) {
  std::cout << fmt::format("toolkit  {}  (CUDA {}, found by {})\n", tk["root"].get<std::string>(),
                           tk["cuda_version"].get<std::string>(), status_found_by_text(tk));
  std::cout << "  cuDNN  " << (tk["cudnn_version"].is_null() ? "none" : tk["cudnn_version"].get<std::string>())
            << (tk["transactions"].empty() ? "  (found in place; not installed by cudnn-install)" : "") << "\n";
  for (const auto& h : tk["transactions"])
    std::cout << fmt::format("  {}  {} {} from {} ({} files){}\n", h["time"].get<std::string>(),
                             h["operation"].get<std::string>(), h["cudnn_version"].get<std::string>(),
                             h["archive"].get<std::string>(), h["files"].get<size_t>(),
                             &h == &tk["transactions"].back() ? "  <- --rollback undoes this" : "");
  std::cout << "  path   " << tk["path_state"].get<std::string>() << "\n";
  for (const auto& c : tk["cleaned"]) std::cout << "  cleaned  " << c.get<std::string>() << "\n";
  if (tk["pending_journal"].get<bool>())
    std::cout << "  an interrupted transaction is pending: run any command to recover\n";
}

}  // namespace

int cmd_status(const Options& o) {
  auto search = system_toolkit_search(o.cuda_root, process_runner());
  std::vector<Toolkit> toolkits;
  if (o.cuda_root) {
    auto tk = probe_toolkit(*o.cuda_root, "--cuda-root", search);
    if (!tk) return report_error(tk.error(), o);
    toolkits.push_back(*tk);
  } else {
    toolkits = find_toolkits(search);
  }
  nlohmann::json all = nlohmann::json::array();
  int rc = 0;
  for (const auto& tk : toolkits) all.push_back(toolkit_status(tk, o, rc));
  if (o.format == Format::Json) {
    answer()["toolkits"] = all;
  } else {
    if (all.empty()) std::cout << "no CUDA toolkit found (pass --cuda-root DIR)\n";
    for (const auto& tk : all) print_text(tk);
  }
  if (!o.cuda_root) tell_status_choice(toolkits, search, o);
  return rc;
}

}  // namespace cudnn_install::cli
