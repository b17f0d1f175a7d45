// Stage 6 (Linux): the dynamic loader's view. Is the toolkit's library directory searched
// (ld.so.conf and its includes, the default directories)? Which other libcudnn.so.N would the
// loader find first? And the change that makes it searched: a file in ld.so.conf.d (installed
// by the transaction, so --rollback removes it) or an LD_LIBRARY_PATH line to print.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/process.hpp"
#include "cudnn_install/toolkit.hpp"

namespace cudnn_install {

// Everything outside the process that the answers depend on; tests use a sandbox.
struct LoaderEnv {
  std::filesystem::path etc = "/etc";
  std::vector<std::filesystem::path> default_dirs{
      "/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  std::string ld_library_path;  // $LD_LIBRARY_PATH
  std::optional<std::filesystem::path> conda_prefix, virtual_env;
  std::string ldconfig = "ldconfig";  // the program run after the configuration changed (a path, or found on PATH)
  // Configuration files a plan is about to write (path, content): read as if they were on disk,
  // so that a plan's shadowing warnings count the entry it adds.
  std::vector<std::pair<std::filesystem::path, std::string>> pending_files;
};

enum class LoaderMode { System, Print, Skip };

// Directories from ld.so.conf, following "include" globs, in order.
std::vector<std::filesystem::path> ld_so_conf_dirs(const LoaderEnv& env);
bool loader_searches(const std::filesystem::path& dir, const LoaderEnv& env);

struct LoaderChange {
  LoaderMode mode = LoaderMode::Skip;
  std::string conf_file;     // absolute: <etc>/ld.so.conf.d/cudnn-install-<toolkit path>-<crc>.conf
  std::string conf_content;  // "<lib dir>\n"
  std::string shell_line;    // for Print: the export line
  std::string reason;        // why nothing is needed, or what is proposed
};
LoaderChange plan_loader_change(const Toolkit& toolkit, const LoaderEnv& env, LoaderMode mode);

struct Shadow {
  std::string path;     // another libcudnn.so.N
  std::string version;  // from its symlink chain, when it says
  std::string where;    // "LD_LIBRARY_PATH", "ld.so.conf", "system directory", "conda", "virtualenv"
  // A pip wheel's own cuDNN (nvidia-cudnn-cuNN in a virtualenv): a separate copy that PyTorch and
  // TensorFlow from pip load by design, never through the loader's search. Not a shadow: removing
  // it breaks them.
  bool pip_wheel = false;
};
// Copies of libcudnn.so.<major> the loader (or Python) finds before the toolkit's, and pip wheels'
// own copies (pip_wheel). The loader's order is LD_LIBRARY_PATH, the ld.so.conf directories, then
// the default ones: what comes after the toolkit's own directory (an entry whose real path is that
// directory, such as this tool's) is shadowed by it, and a file whose real path is inside the
// toolkit is the toolkit's own, never a shadow.
std::vector<Shadow> find_shadowing(const Toolkit& toolkit, int major, const LoaderEnv& env);

// Runs env.ldconfig (no arguments, no shell) so that the loader cache sees the change.
Result<void> run_ldconfig(const LoaderEnv& env, ProcessRunner& runner);

// The real environment of this process.
LoaderEnv system_loader_env();

}  // namespace cudnn_install
