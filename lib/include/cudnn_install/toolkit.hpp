// Stage 2: find CUDA toolkits and read their version and layout.
#pragma once
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/process.hpp"

namespace cudnn_install {

struct CudaVersion {
  int major = 0;
  int minor = 0;
  std::optional<int> patch;
  std::string to_string() const;
};

struct Toolkit {
  std::filesystem::path root;
  CudaVersion version;
  std::string version_source;  // "version.json", "version.txt", "cuda.h (CUDA_VERSION 13000)", "nvcc --version"
  std::string found_by;        // "--cuda-root", "CUDA_PATH", "nvcc on PATH", "default location"
  TargetOs os = TargetOs::Linux;
  // Directories relative to root, symlinks resolved when they stay inside the tree.
  std::filesystem::path include_dir = "include";
  std::filesystem::path bin_dir = "bin";             // where cudart lives: DLLs go here
  std::filesystem::path lib_dir = "lib64";           // Linux shared and static libraries
  std::filesystem::path import_lib_dir = "lib/x64";  // Windows .lib files
  // Linux: the CPU targets the toolkit holds libraries for, from <root>/targets ("x86_64-linux",
  // "sbsa-linux", ...); empty when the tree has no targets/ (then the architecture is not checked).
  std::vector<std::string> targets;
};

// The toolkit target a Linux archive's platform is built for: "linux-x86_64" and "linux-x64" ->
// "x86_64-linux", "linux-sbsa" and "linux-aarch64sbsa" -> "sbsa-linux", "linux-aarch64" (Jetson) ->
// "aarch64-linux", "linux-ppc64le" -> "ppc64le-linux"; nullopt for other platforms.
std::optional<std::string> linux_target_of(const std::string& platform);

// Where to look; every outside input is injected so tests can use sandbox trees.
struct ToolkitSearch {
  std::optional<std::filesystem::path> cuda_root;                // --cuda-root
  std::vector<std::pair<std::string, std::string>> environment;  // name=value pairs
  std::vector<std::filesystem::path> default_dirs;               // platform defaults, expanded
  char path_separator = ':';                                     // of PATH: ';' on Windows
  // Runs "<root>/bin/nvcc --version" and returns its output, or nullopt.
  std::function<std::optional<std::string>(const std::filesystem::path& nvcc)> run_nvcc;
};

// Reads one toolkit's version and layout; fails if root does not look like a CUDA toolkit.
Result<Toolkit> probe_toolkit(const std::filesystem::path& root, std::string found_by, const ToolkitSearch& search);
// Every distinct toolkit found, in priority order.
std::vector<Toolkit> find_toolkits(const ToolkitSearch& search);
// Picks the toolkit for an archive built for `cuda_major` (nullopt: unknown, e.g. --force-name).
Result<Toolkit> choose_toolkit(const ToolkitSearch& search, std::optional<int> cuda_major);

// The real machine's inputs: environment, default directories, and nvcc run through `runner`, which
// must outlive the search (toolkit_posix/_win32).
ToolkitSearch system_toolkit_search(std::optional<std::filesystem::path> cuda_root, ProcessRunner& runner);
// `nvcc --version` through the runner: its output, or nullopt when it cannot run or fails.
std::optional<std::string> nvcc_version_output(ProcessRunner& runner, const std::filesystem::path& nvcc);

}  // namespace cudnn_install
