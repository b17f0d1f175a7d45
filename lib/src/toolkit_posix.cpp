// POSIX inputs for toolkit detection: the process environment, /usr/local/cuda*, and nvcc.
#include <unistd.h>  // environ (glibc declares it with _GNU_SOURCE, which g++ defines)

#include <cstdio>
#include <regex>

#include "cudnn_install/toolkit.hpp"

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

std::optional<std::string> run_nvcc(const fs::path& nvcc) {
  std::string command = "'" + nvcc.string() + "' --version 2>/dev/null";
  if (nvcc.string().find('\'') != std::string::npos) return std::nullopt;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  return pclose(pipe) == 0 ? std::optional(out) : std::nullopt;
}

}  // namespace

ToolkitSearch system_toolkit_search(std::optional<fs::path> cuda_root) {
  ToolkitSearch search;
  search.cuda_root = std::move(cuda_root);
  for (char** e = environ; e && *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos) search.environment.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
  }
  search.default_dirs = default_dirs();
  search.run_nvcc = run_nvcc;
  return search;
}

}  // namespace cudnn_install
