// `cudnn-install verify`, and the verification that follows an install.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/utf8.hpp"
#include "cudnn_install/verify.hpp"

namespace cudnn_install::cli {

int run_verify(const Toolkit& toolkit, const std::string& expected_version, const Options& o) {
  VerifyOptions options;
  options.expected_version = expected_version;
  options.probe_command = probe_command();
  if (toolkit.os == TargetOs::Windows) options.windows_runtime = windows_runtime_evidence(toolkit);
  auto report = verify_install(toolkit, options, process_runner());
  if (!report) return report_error(report.error(), o);
  if (o.format == Format::Json && answer().kind() == "verify")
    answer().merge(nested(verify_to_json(*report)));
  else if (o.format == Format::Json)  // after an install
    answer()["verification"] = nested(verify_to_json(*report));
  else if (o.verbosity != Verbosity::Quiet || !report->ok())
    std::cout << render_verify_text(*report);
  if (!report->ok()) return static_cast<int>(ExitCode::VerifyFailed);
  bool gpu = report->runtime && report->runtime->gpu == ProbeResult::Gpu::Used;
  if (expected_version.empty() || o.no_bench || !gpu) return 0;  // after an install, with a GPU: a short bench
  return run_post_install_bench(toolkit, o);
}

int cmd_verify(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  return run_verify(*toolkit, "", o);
}

// The child side of the runtime check: `cudnn-install __probe LIB` (probe_command) prints one JSON object.
std::vector<std::string> probe_command() {
  return {utf8_text(current_executable()), kProbeArgument};  // UTF-8, as the runner takes arguments
}

int cmd_probe(const std::filesystem::path& library) {
  std::cout << probe_to_json(probe_library(library)).dump() << "\n";
  return 0;
}

}  // namespace cudnn_install::cli
