// diagnose (doctor.hpp): the evidence gathered from the machine, then run_doctor over it.
#include <system_error>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/doctor.hpp"
#include "cudnn_install/env_step.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {
namespace {

// The first line a program prints, or "" when it cannot run or fails.
std::string first_output_line(ProcessRunner& runner, const std::vector<std::string>& argv) {
  RunOptions options;
  options.timeout = std::chrono::seconds(30);
  auto ran = runner.run(argv, options);
  if (!ran || !ran->succeeded()) return "";
  std::string out = ran->out.substr(0, ran->out.find('\n'));
  while (!out.empty() && (out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

// cuDNN files in the toolkit of another major than its headers say.
std::vector<std::string> other_majors_in(const Toolkit& toolkit, int major) {
  std::vector<std::string> found;
  for (const auto& [path, file] : cudnn_files_in(*make_real_filesystem(), toolkit)) {
    auto m = cudnn_major_of(utf8_path(path).filename().string());
    if (m && *m != major) found.push_back(path);
  }
  return found;
}

}  // namespace

Result<std::vector<Finding>> diagnose(const Toolkit& toolkit, DoctorServices& services) {
  VerifyOptions options;
  options.probe_command = services.probe_command;
  TRY_ASSIGN(auto report, verify_install(toolkit, options, services.runner));
  DoctorInputs in;
  in.toolkit = toolkit;
  int major = util::leading_int(report.header_version).value_or(0);  // "9.19.0" -> 9, as doctor.cpp reads it
  in.verify = std::move(report);
  add_env_evidence(in, toolkit, major);
  in.other_majors = other_majors_in(toolkit, major);
  in.frameworks = find_frameworks(site_packages_dirs(services.python_environment()));
  in.smi_driver =
      first_output_line(services.runner, {"nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"});
  std::error_code ec;
  in.has_dev_symlink =
      toolkit.os != TargetOs::Linux || std::filesystem::exists(toolkit.root / toolkit.lib_dir / "libcudnn.so", ec);
  return run_doctor(in);
}

}  // namespace cudnn_install
