// `cudnn-install doctor`: the library's diagnose (doctor.hpp), its findings printed.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/doctor.hpp"

namespace cudnn_install::cli {

int cmd_doctor(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  DoctorServices services{process_runner()};
  services.probe_command = probe_command();
  auto findings = diagnose(*toolkit, services);
  if (!findings) return report_error(findings.error(), o);
  if (o.format == Format::Json)
    answer().merge(nested(doctor_to_json(*findings, *toolkit)));
  else
    std::cout << render_doctor_text(*findings, *toolkit, command_to_paste);
  for (const auto& f : *findings)
    if (f.severity == Severity::Error) return static_cast<int>(ExitCode::VerifyFailed);
  return 0;
}

}  // namespace cudnn_install::cli
