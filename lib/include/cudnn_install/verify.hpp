// Stage 7: prove the install. Static: the installed header, the library files and their versions
// agree, and every sub-library the main library needs is there. Runtime: the installed library is
// loaded by absolute path in a child process (a cuDNN 8 shim aborts when a sub-library is
// missing; the parent must survive to report it) and asked for its version.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/windows_runtime.hpp"

namespace cudnn_install {

struct LibraryCheck {
  std::string name;  // "libcudnn_ops.so.9" / "cudnn_ops64_9.dll"
  std::string path;  // where it was looked for
  bool present = false;
  std::string version;  // from the file name chain or FileVersion, empty when it says nothing
};

// What the child process found. Filled by probe_library() in the child, parsed in the parent.
struct ProbeResult {
  enum class Load { Loaded, NotFound, Failed, Crashed };
  Load load = Load::Failed;
  std::string detail;       // dlerror(), the signal, ...
  long version = 0;         // cudnnGetVersion()
  long cudart_version = 0;  // cudnnGetCudartVersion()
  std::string status_text;  // cudnnGetErrorString(0), the library's own wording
  enum class Gpu { Used, NoDriver, NoDevice, Failed };
  Gpu gpu = Gpu::NoDriver;
  std::string gpu_detail;  // device name, or why not
  int driver_version = 0;  // cuDriverGetVersion(), 0 when unknown
};

struct VerifyReport {
  std::string toolkit_root;
  std::string header_version;    // installed cudnn_version.h, "9.19.0"
  int header_number = 0;         // 91900
  std::string expected_version;  // the archive's, when verifying right after an install
  std::vector<LibraryCheck> libraries;
  std::optional<ProbeResult> runtime;
  std::vector<std::string> problems;  // each a sentence; empty = verified
  std::vector<std::string> notes;     // e.g. "no GPU: version check only"
  bool ok() const { return problems.empty(); }
};

enum class RuntimeCheck { Run, Skip };

struct VerifyOptions {
  std::string expected_version;  // "9.19.0" or empty
  RuntimeCheck runtime = RuntimeCheck::Run;
  // The command whose child process runs probe_library on the path appended to it and prints
  // probe_to_json; the CLI gives itself with its hidden probe argument.
  std::vector<std::string> probe_command;
  // For a Windows toolkit: what the machine has of zlibwapi.dll and the VC++ runtime (gathered by
  // the CLI); what the installed cuDNN still needs becomes a problem (needed) or a note (maybe).
  std::optional<WindowsRuntimeEvidence> windows_runtime;
};

// The runtime check runs the probe command through `runner`.
Result<VerifyReport> verify_install(const Toolkit& toolkit, const VerifyOptions& options, ProcessRunner& runner);

// The FileVersion of a DLL's version resource ("8.9.5.30"), from VS_FIXEDFILEINFO after checking its
// 0xFEEF04BD signature; nullopt when there is none. Windows builds only (file_version_win32.cpp).
std::optional<std::string> dll_file_version(const std::filesystem::path& dll);
// True when a library's stated version agrees with the header's ("9.1.0" or "9.1.0.x" for "9.1.0").
bool versions_agree(const std::string& library_version, const std::string& header_version);

// The cuDNN version the toolkit's installed cudnn_version.h (cudnn.h before 8.0) states.
std::optional<CudnnVersion> installed_cudnn_version(const Toolkit& toolkit);

// The sub-libraries cuDNN `major` needs besides the main library.
std::vector<std::string> cudnn_sublibraries(int major);
// Runs in the child: loads `library` and asks it. Prints nothing; the caller serialises.
ProbeResult probe_library(const std::filesystem::path& library);
nlohmann::json probe_to_json(const ProbeResult& r);
ProbeResult probe_from_json(const nlohmann::json& j);
// Runs `probe_command library` and reads its answer; a crash becomes Load::Crashed.
ProbeResult probe_in_child(ProcessRunner& runner, const std::vector<std::string>& probe_command,
                           const std::filesystem::path& library);

nlohmann::json verify_to_json(const VerifyReport& report);
std::string render_verify_text(const VerifyReport& report);

}  // namespace cudnn_install
