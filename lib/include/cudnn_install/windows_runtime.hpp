// What cuDNN on Windows needs beside its own DLLs: zlibwapi.dll (cuDNN 8.3 to 8.9; 9.0 and 9.1
// said to be unclear; not from 9.2, nor before 8.3, which linked zlib statically) and the Visual
// C++ runtime. Pure over what was found on the machine; one source for the plan, verify and doctor.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace cudnn_install {

// Gathered by windows_runtime_evidence (env_step.hpp); on Linux only the toolkit's bin directory can be looked at.
struct WindowsRuntimeEvidence {
  bool zlibwapi_found = true;                // zlibwapi.dll beside cuDNN or on PATH
  std::vector<std::string> missing_runtime;  // msvcp140.dll / vcruntime140.dll not in System32
};

struct RuntimeNeed {
  std::string check;     // "zlibwapi", "vc-runtime" (doctor's check ids)
  bool required = true;  // false: possibly needed (zlibwapi for 9.0 and 9.1)
  std::string summary;
  std::vector<std::string> evidence;
  std::string fix;  // which file, from where, into which directory
};

// What cuDNN <major>.<minor> whose DLLs live in bin_dir still lacks on this machine.
std::vector<RuntimeNeed> windows_runtime_needs(int cudnn_major, int cudnn_minor, const std::filesystem::path& bin_dir,
                                               const WindowsRuntimeEvidence& evidence);

}  // namespace cudnn_install
