#include "cudnn_install/doctor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "base/util.hpp"
#include "cudnn_install/report.hpp"
#include "cudnn_install/shell_quote.hpp"

namespace cudnn_install {
namespace {

// A pip wheel's cuDNN is the copy PyTorch / TensorFlow from pip load by design: information only.
Finding pip_wheel_finding(const Shadow& s, const std::string& ours) {
  return {"pip-wheel",
          Severity::Info,
          fmt::format("pip's nvidia-cudnn wheel carries its own cuDNN{}: a separate copy, not a shadow",
                      s.version.empty() ? "" : " " + s.version),
          {s.path, "found in the " + s.where, "the toolkit's copy: " + ours},
          "nothing to do: PyTorch and TensorFlow installed by pip load the wheel's copy by design (removing it breaks "
          "them); programs built against the toolkit load " +
              ours};
}

void check_shadowing(const DoctorInputs& in, std::vector<Finding>& out) {
  const auto& dir = in.toolkit.os == TargetOs::Windows ? in.toolkit.bin_dir : in.toolkit.lib_dir;
  for (const auto& s : in.shadows)
    if (s.pip_wheel)
      out.push_back(pip_wheel_finding(s, (in.toolkit.root / dir).string()));
    else
      out.push_back({"shadowing",
                     Severity::Warning,
                     fmt::format("another libcudnn is found before the toolkit's: {}{}", s.path,
                                 s.version.empty() ? "" : " (cuDNN " + s.version + ")"),
                     {"found through the " + s.where, "the toolkit's copy: " + (in.toolkit.root / dir).string()},
                     "remove that copy, or put " + (in.toolkit.root / dir).string() + " first"});
}

void check_libraries(const DoctorInputs& in, std::vector<Finding>& out) {
  for (const auto& lib : in.verify.libraries)
    if (!lib.present)
      out.push_back({"missing-sublibrary",
                     Severity::Error,
                     lib.name + " is missing: programs fail with \"Could not load library\"",
                     {lib.path},
                     "install the complete cuDNN archive again (cudnn-install ARCHIVE)"});
  for (const auto& p : in.verify.problems)
    if (p.find("mixed cuDNN versions") != std::string::npos || p.find("reports version") != std::string::npos)
      out.push_back({"mixed-versions",
                     Severity::Error,
                     p,
                     {in.verify.toolkit_root},
                     "install one complete cuDNN archive; uninstall --force clears the tree of cuDNN first",
                     {"uninstall", "--force", "--cuda-root", in.verify.toolkit_root}});
  if (!in.other_majors.empty())
    out.push_back({"other-major", Severity::Info, "files of another cuDNN major sit beside this one", in.other_majors,
                   "nothing to do if programs built against that major still need them"});
}

// The release notes' minimum driver for the toolkit's CUDA major on its platform.
std::optional<std::string> minimum_driver(const Toolkit& tk) {
  return tk.os == TargetOs::Windows ? minimum_windows_driver(tk.version.major) : minimum_linux_driver(tk.version.major);
}

void check_runtime(const DoctorInputs& in, std::vector<Finding>& out) {
  const auto& probe = in.verify.runtime;
  if (!probe) return;
  if (probe->load != ProbeResult::Load::Loaded)
    out.push_back({"load",
                   Severity::Error,
                   "the installed library does not load: " + probe->detail,
                   {in.verify.toolkit_root},
                   "verify says what fails in detail; then reinstall the archive",
                   {"verify", "--cuda-root", in.verify.toolkit_root}});
  if (probe->gpu == ProbeResult::Gpu::NoDriver || probe->driver_version == 0) {
    out.push_back({"driver", Severity::Info, "no NVIDIA driver found: the GPU checks were skipped",
                   probe->gpu_detail.empty() ? std::vector<std::string>{} : std::vector<std::string>{probe->gpu_detail},
                   "install the NVIDIA driver to use cuDNN on a GPU"});
    return;
  }
  int driver_major = probe->driver_version / 1000, driver_minor = (probe->driver_version % 1000) / 10;
  // With nvidia-smi's exact version, check_driver_version judges the driver instead.
  if (driver_major < in.toolkit.version.major && in.smi_driver.empty()) {
    auto minimum = minimum_driver(in.toolkit);
    out.push_back(
        {"driver",
         Severity::Error,
         fmt::format("the driver supports CUDA {}.{} but the toolkit is CUDA {}", driver_major, driver_minor,
                     in.toolkit.version.to_string()),
         {fmt::format("cuDriverGetVersion() = {}", probe->driver_version)},
         minimum ? "update the NVIDIA driver to " + *minimum + " or newer"
                 : "update the NVIDIA driver to one that supports CUDA " + std::to_string(in.toolkit.version.major)});
  }
}

std::string framework_fix(const Framework& f, int theirs, int ours) {
  std::string other_stack = fmt::format(
      "or install the cuDNN archive for CUDA {0} (\"_cuda{0}\" in its name) into a CUDA {0} toolkit", theirs);
  if (f.name == "PyTorch")
    return fmt::format(
               "pip's PyTorch loads the cuDNN of its own nvidia-cudnn-cu{} wheel, not this one; to use this one, "
               "install PyTorch for CUDA {} (pip index https://download.pytorch.org/whl/cu{}0), ",
               theirs, ours, ours) +
           other_stack;
  return fmt::format("install a {} built for CUDA {}, ", f.name, ours) + other_stack;
}

// Check 6: the CUDA major this cuDNN was built for (cudnnGetCudartVersion) against the toolkit's,
// and against PyTorch's / TensorFlow's in the active Python environment.
void check_cuda_major(const DoctorInputs& in, std::vector<Finding>& out) {
  int toolkit_major = in.toolkit.version.major;
  long cudart = in.verify.runtime ? in.verify.runtime->cudart_version : 0;
  if (cudart > 0 && cudart / 1000 != toolkit_major)
    out.push_back(
        {"cuda-major",
         Severity::Error,
         fmt::format("this cuDNN was built for CUDA {} but the toolkit is CUDA {}", cudart / 1000,
                     in.toolkit.version.to_string()),
         {fmt::format("cudnnGetCudartVersion() = {}", cudart), in.toolkit.root.string()},
         fmt::format("install the cuDNN archive for CUDA {0} (\"_cuda{0}\" in its name): cudnn-install ARCHIVE",
                     toolkit_major)});
  int ours = cudart > 0 ? static_cast<int>(cudart / 1000) : toolkit_major;
  int cudnn_major = util::leading_int(in.verify.header_version).value_or(0);  // "9.19.0" -> 9
  for (const auto& f : in.frameworks) {
    std::string what = f.name + (f.version.empty() ? "" : " " + f.version);
    std::optional<int> theirs = f.cuda_major();
    if (!theirs) {
      out.push_back({"cuda-major",
                     Severity::Info,
                     what + " is a CPU-only build: it does not use cuDNN",
                     {f.where},
                     "install its CUDA " + std::to_string(ours) + " build to use the GPU"});
    } else if (*theirs != ours) {
      out.push_back(
          {"cuda-major",
           Severity::Warning,
           fmt::format("{} is built for CUDA {}, this cuDNN for CUDA {}: it cannot use this cuDNN", what, f.cuda, ours),
           {f.where},
           framework_fix(f, *theirs, ours)});
    } else if (f.cudnn_major && *f.cudnn_major != cudnn_major) {
      out.push_back({"cuda-major",
                     Severity::Warning,
                     fmt::format("{} was built against cuDNN {}, this is cuDNN {}", what, *f.cudnn_major,
                                 in.verify.header_version),
                     {f.where},
                     fmt::format("install cuDNN {} for CUDA {}, or a {} built for cuDNN {}", *f.cudnn_major, ours,
                                 f.name, cudnn_major)});
    } else {
      out.push_back({"cuda-major",
                     Severity::Info,
                     fmt::format("{} is built for CUDA {}, as this cuDNN is", what, f.cuda),
                     {f.where},
                     "nothing to do"});
    }
  }
}

// Check 5 with nvidia-smi's exact driver version against the release notes' minimum: finer than
// cuDriverGetVersion (which says only which CUDA the driver supports), and it works without a probe.
void check_driver_version(const DoctorInputs& in, std::vector<Finding>& out) {
  if (in.smi_driver.empty()) return;
  int major = in.toolkit.version.major;
  auto minimum = minimum_driver(in.toolkit);
  std::vector<std::string> evidence{"nvidia-smi: driver_version = " + in.smi_driver};
  if (in.verify.runtime && in.verify.runtime->driver_version > 0)
    evidence.push_back(fmt::format("cuDriverGetVersion() = {}", in.verify.runtime->driver_version));
  if (!minimum) {
    out.push_back({"driver", Severity::Info,
                   fmt::format("driver {}; the minimum for CUDA {} on this platform is not published in a form this "
                               "tool knows",
                               in.smi_driver, major),
                   evidence, "check NVIDIA's CUDA release notes for your toolkit"});
  } else if (driver_older_than(in.smi_driver, *minimum)) {
    out.push_back({"driver", Severity::Error,
                   fmt::format("the driver {} is older than CUDA {} needs (>= {})", in.smi_driver, major, *minimum),
                   evidence, "update the NVIDIA driver to " + *minimum + " or newer"});
  }
}

void check_paths(const DoctorInputs& in, std::vector<Finding>& out) {
  std::string lib = (in.toolkit.root / in.toolkit.lib_dir).string();
  if (in.toolkit.os == TargetOs::Linux && !in.loader_searches_lib)
    out.push_back({"loader",
                   Severity::Warning,
                   "the dynamic loader does not search " + lib,
                   {"ld.so.conf and its includes"},
                   "cudnn-install --loader-config=system ARCHIVE (adds an ld.so.conf.d entry), or " +
                       export_prepend_line("LD_LIBRARY_PATH", lib)});
  std::string root = in.toolkit.root.string();
  if (std::any_of(root.begin(), root.end(), [](unsigned char c) { return c >= 0x80; }))
    out.push_back({"non-ascii-path",
                   Severity::Warning,
                   "the toolkit path contains non-ASCII characters",
                   {root},
                   "some build tools mishandle such paths; install the toolkit under an ASCII path"});
}

void check_build_discovery(const DoctorInputs& in, std::vector<Finding>& out) {
  // make_preferred: ...\v12.4\lib\x64 on Windows, not ...\v12.4\lib/x64 (the layout's own spelling).
  std::string include = (in.toolkit.root / in.toolkit.include_dir).make_preferred().string();
  std::string lib = (in.toolkit.root / in.toolkit.lib_dir).make_preferred().string();
  if (in.toolkit.os == TargetOs::Linux && !in.has_dev_symlink)
    out.push_back({"build",
                   Severity::Warning,
                   "libcudnn.so is missing: `-lcudnn` and CMake's FindCUDNN cannot link",
                   {lib},
                   "install the archive again (it ships the libcudnn.so link)"});
  // Lines to paste, quoted for the shell of the toolkit's system: its path has spaces on Windows,
  // where PowerShell's lines are followed by cmd's (many still build from a cmd prompt).
  std::string root = in.toolkit.root.string();
  std::vector<std::string> lines;
  auto add_lines = [&](Shell shell, const std::string& cmake_label) {
    lines.push_back(set_variable_line("CUDNN_PATH", root, shell));
    lines.push_back(set_variable_line("CUDNN_INCLUDE_DIR", include, shell));
    lines.push_back(set_variable_line("CUDNN_LIBRARY_DIR", lib, shell));
    lines.push_back(cmake_label + quote_arg("-DCUDNN_ROOT=" + root, shell));
  };
  bool windows = in.toolkit.os == TargetOs::Windows;
  add_lines(windows ? Shell::PowerShell : Shell::Posix, "cmake option: ");
  if (windows) add_lines(Shell::Cmd, "cmake option in cmd: ");
  out.push_back({"build", Severity::Info, "what a build needs to find this cuDNN", std::move(lines),
                 windows ? "paste the first lines into PowerShell or the set lines into cmd before building, or give "
                           "CMake the option"
                         : "paste these into the shell before building, or give CMake the option"});
}

}  // namespace

std::optional<std::string> minimum_linux_driver(int cuda_major) {
  switch (cuda_major) {
    case 11:
      return "450.80.02";
    case 12:
      return "525.60.13";
    case 13:
      return "580.65.06";
    default:
      return std::nullopt;
  }
}

std::optional<std::string> minimum_windows_driver(int cuda_major) {
  switch (cuda_major) {
    case 11:
      return "452.39";
    case 12:
      return "527.41";
    default:
      return std::nullopt;
  }
}

bool driver_older_than(const std::string& version, const std::string& minimum) {
  auto parts = [](const std::string& v) {
    std::vector<long> out;
    for (std::size_t i = 0; i < v.size();) {
      std::size_t dot = v.find('.', i);
      out.push_back(std::strtol(v.substr(i, dot - i).c_str(), nullptr, 10));
      i = dot == std::string::npos ? v.size() : dot + 1;
    }
    return out;
  };
  return parts(version) < parts(minimum);
}

std::vector<Finding> run_doctor(const DoctorInputs& in) {
  std::vector<Finding> out = windows_findings(in);
  check_libraries(in, out);
  check_runtime(in, out);
  check_driver_version(in, out);
  check_cuda_major(in, out);
  check_shadowing(in, out);
  check_paths(in, out);
  check_build_discovery(in, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return out;
}

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "?";
}

nlohmann::json doctor_to_json(const std::vector<Finding>& findings, const Toolkit& toolkit) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : findings)
    list.push_back({{"check", f.check},
                    {"severity", to_string(f.severity)},
                    {"summary", f.summary},
                    {"evidence", f.evidence},
                    {"fix", f.fix},
                    {"command", f.command}});
  return {{"schema", kJsonSchema}, {"kind", "doctor"}, {"toolkit", toolkit.root.string()}, {"findings", list}};
}

std::string render_doctor_text(const std::vector<Finding>& findings, const Toolkit& toolkit,
                               const CommandToPaste& paste) {
  std::string out = "doctor   " + toolkit.root.string() + " (CUDA " + toolkit.version.to_string() + ")\n";
  for (const auto& f : findings) {
    out += fmt::format("\n{:<8} [{}] {}\n", to_string(f.severity), f.check, f.summary);
    for (const auto& e : f.evidence) out += "         " + e + "\n";
    out += "  fix:   " + f.fix + "\n";
    if (!f.command.empty()) out += "  run:   " + paste(f.command) + "\n";
  }
  return out + "\n" + doctor_summary(findings) + "\n";
}

std::string doctor_summary(const std::vector<Finding>& findings) {
  auto count = [&](Severity s) {
    return std::count_if(findings.begin(), findings.end(), [s](const Finding& f) { return f.severity == s; });
  };
  auto plural = [](long n, const char* what) { return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s"); };
  long errors = count(Severity::Error), warnings = count(Severity::Warning);
  if (errors == 0 && warnings == 0) return "no problems found.";
  return fmt::format("{}, {}: see the fixes above.", errors ? plural(errors, "error") : "no errors",
                     warnings ? plural(warnings, "warning") : "no warnings");
}

}  // namespace cudnn_install
