// The Linux loader step of an install: plan the ld.so.conf.d entry (or the LD_LIBRARY_PATH line),
// warn about other libcudnn copies found first, run ldconfig after the change and after rollback.
#include <unistd.h>

#include <iostream>

#include "cli.hpp"
#include "cudnn_install/loader.hpp"

namespace cudnn_install::cli {
namespace {

LoaderMode mode_of(const Options& o) {
  if (o.no_path || o.loader_config == "none") return LoaderMode::Skip;
  if (o.loader_config == "system") return LoaderMode::System;
  if (o.loader_config == "print") return LoaderMode::Print;
  return ::geteuid() == 0 ? LoaderMode::System : LoaderMode::Print;  // "auto"
}

}  // namespace

std::optional<LoaderChange> loader_change_for(const Toolkit& tk, const Options& o) {
  if (tk.os != TargetOs::Linux) return std::nullopt;
  return plan_loader_change(tk, system_loader_env(), mode_of(o));
}

std::vector<GeneratedFile> loader_files(const std::optional<LoaderChange>& change) {
  if (!change || change->mode != LoaderMode::System) return {};
  GeneratedFile g{change->conf_file, change->conf_content, std::nullopt};
  if (auto current = make_real_filesystem()->read_file(change->conf_file)) g.current = *current;
  return {g};
}

void print_loader(const std::optional<LoaderChange>& change, const Toolkit& tk, int cudnn_major, const Options& o) {
  if (!change || o.format != Format::Text || o.verbosity == Verbosity::Quiet) return;
  std::cout << "loader   " << change->reason << "\n";
  if (change->mode == LoaderMode::Print) std::cout << "         " << change->shell_line << "\n";
  for (const auto& s : find_shadowing(tk, cudnn_major, system_loader_env()))
    std::cout << "warning  " << s.path << (s.version.empty() ? "" : " (cuDNN " + s.version + ")") << " in the " << s.where
              << " is found before the toolkit's copy: programs may load it instead\n";
}

void after_loader_change(bool changed, const Options& o) {
  if (!changed) return;
  if (auto r = run_ldconfig(system_loader_env()); !r) report_error(r.error(), o);
}

}  // namespace cudnn_install::cli
