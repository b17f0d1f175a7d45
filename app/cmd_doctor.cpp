// `cudnn-install doctor`: gathers the evidence (verify, loader, shadowing copies) and prints findings.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/doctor.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install::cli {
namespace {

DoctorInputs gather(const Toolkit& tk, VerifyReport report) {
  DoctorInputs in;
  in.toolkit = tk;
  int major = std::stoi(report.header_version);
  in.verify = std::move(report);
  add_env_evidence(in, tk, major);
  for (const auto& [path, file] : cudnn_files_in(*make_real_filesystem(), tk)) {
    auto m = cudnn_major_of(utf8_path(path).filename().string());
    if (m && *m != major) in.other_majors.push_back(path);
  }
  in.frameworks = find_frameworks(site_packages_dirs(current_python_environment()));
  in.smi_driver = first_output_line({"nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"});
  std::error_code ec;
  in.has_dev_symlink = tk.os != TargetOs::Linux || std::filesystem::exists(tk.root / tk.lib_dir / "libcudnn.so", ec);
  return in;
}

}  // namespace

int cmd_doctor(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  VerifyOptions options;
  options.probe_command = probe_command();
  auto report = verify_install(*toolkit, options, process_runner());
  if (!report) return report_error(report.error(), o);
  auto findings = run_doctor(gather(*toolkit, *report));
  if (o.format == Format::Json)
    answer().merge(nested(doctor_to_json(findings, *toolkit)));
  else
    std::cout << render_doctor_text(findings, *toolkit);
  for (const auto& f : findings)
    if (f.severity == Severity::Error) return static_cast<int>(ExitCode::VerifyFailed);
  return 0;
}

}  // namespace cudnn_install::cli
