// doctor: what is wrong with a cuDNN setup and how to fix it. Each finding has a severity, the
// evidence (paths, versions) and the fix. run_doctor is pure over its inputs; diagnose gathers them.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudnn_install/env.hpp"
#include "cudnn_install/frameworks.hpp"
#include "cudnn_install/loader.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/verify.hpp"

namespace cudnn_install {

enum class Severity { Info, Warning, Error };

struct Finding {
  std::string check;  // stable id: "shadowing", "mixed-versions", "missing-sublibrary", ...
  Severity severity = Severity::Info;
  std::string summary;
  std::vector<std::string> evidence;
  std::string fix;
  // A cudnn-install command that is (part of) the fix, as arguments after the program's name; the
  // app prints it by the name and quoting that work pasted into the user's shell.
  std::vector<std::string> command = {};
};

// How the app prints a cudnn-install command for people to paste (its arguments after the name).
using CommandToPaste = std::function<std::string(const std::vector<std::string>&)>;

// What doctor knows of a Windows machine (gathered by env_step_win32.cpp; injected in tests).
struct WindowsEvidence {
  std::optional<RegValue> user_path, system_path;  // the raw registry values
  bool zlibwapi_found = true;                      // zlibwapi.dll beside cuDNN or on PATH
  std::vector<std::string> missing_runtime;        // msvcp140.dll / vcruntime140.dll not in System32
  std::vector<std::string> pythons;                // python.exe found on PATH
};

struct DoctorInputs {
  Toolkit toolkit;
  VerifyReport verify;          // static checks and the runtime probe
  std::vector<Shadow> shadows;  // other libcudnn copies found first
  bool loader_searches_lib = true;
  std::vector<std::string> other_majors;   // cudnn files of another major in the library directory
  bool has_dev_symlink = true;             // libcudnn.so (what -lcudnn links against)
  std::optional<WindowsEvidence> windows;  // on Windows only
  std::vector<Framework> frameworks;       // PyTorch / TensorFlow of the active Python environment
  std::string smi_driver;                  // nvidia-smi's driver_version ("580.65.06"), empty without it
};

std::vector<Finding> run_doctor(const DoctorInputs& inputs);

// What `doctor` gathers from the machine besides the toolkit.
struct DoctorServices {
  explicit DoctorServices(ProcessRunner& process_runner) : runner(process_runner) {}
  ProcessRunner& runner;                   // verify's runtime probe, nvidia-smi
  std::vector<std::string> probe_command;  // verify's child: the CLI with its hidden probe argument
  std::function<PythonEnvironment()> python_environment = current_python_environment;
};
// The whole `doctor`: verify (static checks and the runtime probe), the platform's evidence
// (add_env_evidence), cuDNN files of another major, the frameworks of the active Python
// environment and nvidia-smi's driver, then run_doctor over all of it (doctor_gather.cpp).
Result<std::vector<Finding>> diagnose(const Toolkit& toolkit, DoctorServices& services);

// Minimum driver for a CUDA major (CUDA's release notes), nullopt when unknown (Windows, CUDA 13:
// NVIDIA's release notes no longer state it).
std::optional<std::string> minimum_linux_driver(int cuda_major);
std::optional<std::string> minimum_windows_driver(int cuda_major);
// Dotted driver versions compared part by part as numbers: "575.51.03" < "580.65.06".
bool driver_older_than(const std::string& version, const std::string& minimum);
// The Windows checks (doctor_windows.cpp): zlibwapi, PATH, Python's DLL search, the VC++ runtime.
std::vector<Finding> windows_findings(const DoctorInputs& inputs);

const char* to_string(Severity s);
nlohmann::json doctor_to_json(const std::vector<Finding>& findings, const Toolkit& toolkit);
// The last line of doctor's text: "no problems found." only without warnings and errors, else
// their counts ("no errors, 2 warnings: see the fixes above.").
std::string doctor_summary(const std::vector<Finding>& findings);
std::string render_doctor_text(const std::vector<Finding>& findings, const Toolkit& toolkit,
                               const CommandToPaste& paste);

}  // namespace cudnn_install
