// `cudnn-install status`: the library's status (status.hpp), printed.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/status.hpp"

namespace cudnn_install::cli {
namespace {

// Several toolkits: which one the other commands take without --cuda-root, or that they need it.
void tell_default_choice(const Result<Toolkit>& chosen, const Options& o) {
  if (o.format == Format::Json) {
    if (chosen) answer()["toolkit_choice"] = toolkit_choice_json(*chosen);
    return;
  }
  if (chosen)
    std::cout << "without --cuda-root, commands use " << chosen->root.string() << "  (" << choice_text(*chosen)
              << ")\n";
  else
    std::cout << "several CUDA toolkits are installed: commands other than status need --cuda-root (or CUDA_PATH or "
                 "CUDA_HOME set) to choose one\n";
}

}  // namespace

int cmd_status(const Options& o) {
  auto search = system_toolkit_search(o.cuda_root, process_runner());
  auto report = status(search, [&o](const std::filesystem::path& root) { return open_session(root, o); });
  if (!report) return report_error(report.error(), o);
  int rc = 0;
  for (const auto& tk : report->toolkits)
    for (const auto& error : tk.errors) rc = report_error(error, o);
  if (o.format == Format::Json) {
    answer()["toolkits"] = nlohmann::json::array();
    for (const auto& tk : report->toolkits) answer()["toolkits"].push_back(status_to_json(tk));
  } else {
    if (report->toolkits.empty()) std::cout << "no CUDA toolkit found (pass --cuda-root DIR)\n";
    for (const auto& tk : report->toolkits) std::cout << render_status_text(tk);
  }
  if (report->default_choice) tell_default_choice(*report->default_choice, o);
  return rc;
}

}  // namespace cudnn_install::cli
