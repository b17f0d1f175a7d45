// PyTorch and TensorFlow in the active Python environment, and the CUDA they were built for
// (doctor check 6). Found by reading the files each package ships, never by importing it: an
// import of torch takes seconds and may itself fail on the very problem doctor looks for.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnn_install {

struct Framework {
  std::string name;                // "PyTorch" or "TensorFlow"
  std::string version;             // "2.5.1+cu124", or "" when unknown
  std::string cuda;                // "12.4"; "" = a CPU-only build
  std::optional<int> cudnn_major;  // TensorFlow records the cuDNN major it was built against
  std::string where;               // the package directory
  std::optional<int> cuda_major() const;
};

// torch/version.py: `__version__ = '2.5.1+cu124'` and `cuda: Optional[str] = '12.4'` (or None).
std::optional<Framework> parse_torch_version_py(std::string_view text);
// tensorflow/python/platform/build_info.py: ('cuda_version', '12.3'), ('cudnn_version', '8'), or
// the dict form of older releases ("cuda_version": "12.3").
std::optional<Framework> parse_tensorflow_build_info(std::string_view text);

// Where the active environment's packages are, from what a shell would use: $VIRTUAL_ENV,
// $CONDA_PREFIX, the python3 (python.exe) first on PATH, then the user site under home.
struct PythonEnvironment {
  std::string virtual_env, conda_prefix, path, home;
  char path_separator = ':';
};
PythonEnvironment current_python_environment();
std::vector<std::filesystem::path> site_packages_dirs(const PythonEnvironment& env);

// PyTorch and TensorFlow found in those directories, first occurrence of each wins (as import does).
std::vector<Framework> find_frameworks(const std::vector<std::filesystem::path>& site_dirs);

}  // namespace cudnn_install
