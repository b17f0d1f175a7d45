// POSIX inputs for toolkit detection: the process environment, /usr/local/cuda*, and nvcc.
#include <unistd.h>  // environ (glibc declares it with _GNU_SOURCE, which g++ defines)

#include <regex>

#include "cudnn_install/toolkit.hpp"
#include "toolkit_identity.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::vector<fs::path> default_dirs() {
  std::vector<fs::path> dirs{"/usr/local/cuda"};
  static const std::regex versioned(R"(cuda-[0-9]+\.[0-9]+)");
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it("/usr/local", ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), versioned)) found.push_back(it->path());
  std::sort(found.rbegin(), found.rend());  // newest first
  dirs.insert(dirs.end(), found.begin(), found.end());
  dirs.push_back("/opt/cuda");
  return dirs;
}

}  // namespace

std::string toolkit_dir_identity(const fs::path& dir) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(dir, ec);
  if (ec) return {};
  if (!real.has_filename() && real.has_parent_path()) real = real.parent_path();  // "/x/" is "/x"
  return real.string();
}

fs::path real_path_of(const fs::path& path) {
  std::error_code ec;
  fs::path real = fs::weakly_canonical(path, ec);
  return ec ? fs::path() : real;
}

ToolkitSearch system_toolkit_search(std::optional<fs::path> cuda_root, ProcessRunner& runner) {
  ToolkitSearch search;
  search.cuda_root = std::move(cuda_root);
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos) search.environment.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  search.default_dirs = default_dirs();
  search.run_nvcc = [&runner](const fs::path& nvcc) { return nvcc_version_output(runner, nvcc); };
  return search;
}

}  // namespace cudnn_install
