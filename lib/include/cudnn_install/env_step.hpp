// The environment step of an install, one source per platform: the loader configuration on Linux
// (env_step_posix.cpp: an ld.so.conf.d entry, or the LD_LIBRARY_PATH line to use), the registry
// PATH on Windows (env_step_win32.cpp: the toolkit's DLL directory first, in HKCU or HKLM). Also
// the environment as doctor and status see it. The CLI turns its flags into EnvStepOptions and
// prints what comes back.
#pragma once
#include <memory>
#include <string>

#include "cudnn_install/doctor.hpp"
#include "cudnn_install/env.hpp"
#include "cudnn_install/install.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/windows_runtime.hpp"

namespace cudnn_install {

enum class EnvChange { Make, Leave };  // Leave: --no-path
// Linux (--loader-config): an ld.so.conf.d entry (System), the line to use printed (Print), none;
// Auto is System as root, Print otherwise.
enum class LoaderConfig { Auto, System, Print, None };
enum class ShowPathValues { No, BeforeAndAfter };  // a dry run shows the whole PATH before and after

struct EnvStepOptions {
  EnvChange change = EnvChange::Make;
  LoaderConfig loader = LoaderConfig::Auto;
  EnvScope scope = EnvScope::User;  // Windows: --system is EnvScope::System
  ShowPathValues show = ShowPathValues::No;
};

Result<EnvStep> plan_env_step(const Toolkit& toolkit, int cudnn_major, const EnvStepOptions& options);

// What a transaction (or its undo) changed outside the toolkit.
struct EnvChanged {
  bool loader_config = false;
  bool path = false;
};
// Linux: runs ldconfig once the loader configuration changed. Windows: nothing to run (programs
// started from now on see the new PATH).
Result<void> refresh_after_env_change(const EnvChanged& changed, ProcessRunner& runner);

// The registry that holds PATH (Windows); null where there is none (Linux).
std::unique_ptr<EnvStore> open_env_store();

// zlibwapi.dll beside the toolkit's DLLs or on PATH, and the VC++ runtime in System32 (Windows
// builds; elsewhere only the toolkit's bin directory can be looked at).
WindowsRuntimeEvidence windows_runtime_evidence(const Toolkit& toolkit);
// doctor's platform evidence: shadowing copies, and whether the loader (PATH) finds the toolkit.
void add_env_evidence(DoctorInputs& inputs, const Toolkit& toolkit, int cudnn_major);
// One line for status: whether the loader (Linux) or PATH (Windows) finds the toolkit's libraries.
std::string env_state(const Toolkit& toolkit);

}  // namespace cudnn_install
