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

// Why choose_toolkit took a toolkit.
enum class ChosenBy {
  NotChosen,     // listed by find_toolkits (status), not chosen
  CudaRoot,      // --cuda-root
  Variable,      // CUDA_PATH, CUDA_HOME or CUDA_ROOT names it (ToolkitChoice::variable)
  OnlyOne,       // the only toolkit found
  OnlyForMajor,  // the only toolkit of the archive's CUDA major
};

// A toolkit found but not chosen, for the note that says which others exist.
struct OtherToolkit {
  std::filesystem::path root;
  std::string version;
  std::string found_by;
};

struct ToolkitChoice {
  ChosenBy by = ChosenBy::NotChosen;
  std::string variable;           // ChosenBy::Variable: "CUDA_PATH", "CUDA_HOME" or "CUDA_ROOT"
  std::optional<int> cuda_major;  // ChosenBy::OnlyForMajor: the archive's
  std::vector<OtherToolkit> others;
  // A CUDA_PATH, CUDA_HOME or CUDA_ROOT that is set but names no toolkit, said rather than passed
  // over in silence: "'D:\old' (CUDA_PATH) is not a directory; CUDA_PATH was ignored".
  std::vector<std::string> notes;
};

struct Toolkit {
  std::filesystem::path root;
  CudaVersion version;
  std::string version_source;  // "version.json", "version.txt", "cuda.h (CUDA_VERSION 13000)", "nvcc --version"
  std::string found_by;        // "--cuda-root", "CUDA_PATH", "nvcc on PATH", "default location"
  // Other sources that name the same directory (by real path): "nvcc on PATH", "default location /usr/local/cuda".
  std::vector<std::string> also_found_by;
  ToolkitChoice choice;
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
// What the toolkit is chosen for: the refusal's words and the CUDA-major filter depend on it.
enum class ToolkitPurpose {
  Install,  // an archive built for a CUDA major (from its name, sha256 or content)
  Inspect,  // verify, status, doctor, rollback, uninstall, fetch, bench: no archive
};
// Picks one toolkit: --cuda-root; else, among those that fit (Install: the archive's `cuda_major`),
// the one CUDA_PATH, then CUDA_HOME, then CUDA_ROOT names; else the only one. Several and no
// variable: refused, with the list and how each was found. `choice` says which rule took it.
Result<Toolkit> choose_toolkit(const ToolkitSearch& search, ToolkitPurpose purpose,
                               std::optional<int> cuda_major = std::nullopt);
// The same choice among toolkits already found by find_toolkits(search) (status lists them all first).
Result<Toolkit> choose_found_toolkit(const std::vector<Toolkit>& found, const ToolkitSearch& search,
                                     ToolkitPurpose purpose, std::optional<int> cuda_major = std::nullopt);
// "CUDA_PATH (also nvcc on PATH, default location /usr/local/cuda)".
std::string found_by_text(const Toolkit& toolkit);
// For people: how the toolkit was chosen and which others exist, e.g. "from CUDA_HOME; also found:
// /usr/local/cuda-12.4 (CUDA 12.4, default location); use --cuda-root to pick another". Empty when
// there is nothing to say (--cuda-root, or the only toolkit found by a default).
std::string choice_text(const Toolkit& toolkit);
// The machine-readable name of the rule: "--cuda-root", "CUDA_PATH", "only-toolkit", "only-for-cuda-major", ...
std::string to_string(const ToolkitChoice& choice);

// The real machine's inputs: environment, default directories, and nvcc run through `runner`, which
// must outlive the search (toolkit_posix/_win32).
ToolkitSearch system_toolkit_search(std::optional<std::filesystem::path> cuda_root, ProcessRunner& runner);
// `nvcc --version` through the runner: its output, or nullopt when it cannot run or fails.
std::optional<std::string> nvcc_version_output(ProcessRunner& runner, const std::filesystem::path& nvcc);

}  // namespace cudnn_install
