// The environment step of an install on Linux (env_step.hpp): the loader configuration. Plans the
// ld.so.conf.d entry (or the LD_LIBRARY_PATH line), warns about other libcudnn copies found first,
// runs ldconfig after the change and after rollback; the loader's view for doctor and status.
#include <unistd.h>

#include "cudnn_install/env_step.hpp"
#include "cudnn_install/loader.hpp"
#include "cudnn_install/plan.hpp"

namespace cudnn_install {
namespace {

LoaderMode mode_of(const EnvStepOptions& o) {
  if (o.change == EnvChange::Leave || o.loader == LoaderConfig::None) return LoaderMode::Skip;
  if (o.loader == LoaderConfig::System) return LoaderMode::System;
  if (o.loader == LoaderConfig::Print) return LoaderMode::Print;
  return ::geteuid() == 0 ? LoaderMode::System : LoaderMode::Print;  // Auto
}

std::string loader_shadow_line(const Shadow& s) {
  std::string what = s.path + (s.version.empty() ? "" : " (cuDNN " + s.version + ")") + " in the " + s.where;
  if (s.pip_wheel)
    return "note     " + what + " is that wheel's own copy, which pip's PyTorch and TensorFlow load by design; " +
           "programs built against the toolkit load the toolkit's";
  return "warning  " + what + " is found before the toolkit's copy: programs may load it instead";
}

}  // namespace

Result<EnvStep> plan_env_step(const Toolkit& tk, int cudnn_major, const EnvStepOptions& o) {
  EnvStep step;
  if (tk.os != TargetOs::Linux) return step;
  LoaderEnv env = system_loader_env();
  LoaderChange change = plan_loader_change(tk, env, mode_of(o));
  step.lines.push_back("loader   " + change.reason);
  if (change.mode == LoaderMode::Print) step.lines.push_back("         " + change.shell_line);
  if (change.mode == LoaderMode::System) {
    GeneratedFile g{change.conf_file, change.conf_content, std::nullopt};
    if (auto current = make_real_filesystem()->read_file(change.conf_file)) g.current = *current;
    step.files.push_back(std::move(g));
    env.pending_files.emplace_back(change.conf_file, change.conf_content);  // the warnings count the new entry
  }
  for (const auto& s : find_shadowing(tk, cudnn_major, env)) step.lines.push_back(loader_shadow_line(s));
  return step;
}

Result<void> refresh_after_env_change(const EnvChanged& changed, ProcessRunner& runner) {
  if (!changed.loader_config) return {};
  return run_ldconfig(system_loader_env(), runner);
}

std::unique_ptr<EnvStore> open_env_store() { return nullptr; }  // Linux has no registry PATH

void add_env_evidence(DoctorInputs& in, const Toolkit& tk, int cudnn_major) {
  LoaderEnv env = system_loader_env();
  in.shadows = find_shadowing(tk, cudnn_major, env);
  in.loader_searches_lib = loader_searches(tk.root / tk.lib_dir, env);
}

std::string env_state(const Toolkit& tk) {
  if (tk.os != TargetOs::Linux) return "not a Linux toolkit: the loader configuration does not apply";
  std::string lib = (tk.root / tk.lib_dir).string();
  return loader_searches(tk.root / tk.lib_dir, system_loader_env())
             ? lib + " is searched by the dynamic loader"
             : lib + " is not searched by the dynamic loader (LD_LIBRARY_PATH needed; see doctor)";
}

// A Windows toolkit seen from Linux: only its bin directory can be looked at (no PATH, no System32).
WindowsRuntimeEvidence windows_runtime_evidence(const Toolkit& tk) {
  std::error_code ec;
  return {std::filesystem::exists(tk.root / tk.bin_dir / "zlibwapi.dll", ec), {}};
}

}  // namespace cudnn_install
