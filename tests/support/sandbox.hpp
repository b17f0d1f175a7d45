// Temporary directories and fake CUDA toolkit trees for tests.
#pragma once
#include <filesystem>
#include <string>

namespace cudnn_install::test {

// A fresh temporary directory, removed when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void write_file(const std::filesystem::path& path, const std::string& content);
std::string read_file(const std::filesystem::path& path);

// A Linux CUDA toolkit like the pip-assembled one of these machines: include/cuda.h with
// CUDA_VERSION, lib/ and a lib64 -> lib symlink.
void make_linux_toolkit(const std::filesystem::path& root, int cuda_version_number);
// A Windows CUDA toolkit: version.json, bin[/x64]/cudart64_NN.dll, lib/x64, include.
void make_windows_toolkit(const std::filesystem::path& root, const std::string& version, bool dlls_in_x64);

// The command-line arguments for a test archive: it carries a real NVIDIA name with other bytes,
// so the manifest written beside it (redistrib_local.json) gives its sha256 (--manifest).
std::string archive_args(const std::filesystem::path& archive);

#ifdef CLI_PATH
// The cudnn-install built beside the tests (tests/CMakeLists.txt defines CLI_PATH).
inline std::string cli() { return CLI_PATH; }
#endif

// Runs a shell command, returns its exit status and fills `output` with stdout+stderr.
int run_command(const std::string& command, std::string* output = nullptr);

}  // namespace cudnn_install::test
