#include "cudnn_install/toolkit.hpp"

#include <algorithm>
#include <regex>

#include "base/util.hpp"
#include "toolkit_version.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

struct VersionFound {
  CudaVersion version;
  std::string source;
};

std::optional<VersionFound> read_version(const fs::path& root, const ToolkitSearch& search) {
  if (auto text = util::read_text_file(root / "version.json"))
    if (auto v = parse_cuda_version_json(*text)) return VersionFound{*v, "version.json"};
  if (auto text = util::read_text_file(root / "version.txt"))
    if (auto v = parse_cuda_version_txt(*text)) return VersionFound{*v, "version.txt"};
  if (auto text = util::read_text_file(root / "include" / "cuda.h"))
    if (auto v = parse_cuda_h(*text)) return VersionFound{*v, "include/cuda.h (CUDA_VERSION)"};
  for (const char* nvcc : {"bin/nvcc", "bin/nvcc.exe"}) {
    std::error_code ec;
    if (!search.run_nvcc || !fs::exists(root / nvcc, ec)) continue;
    if (auto out = search.run_nvcc(root / nvcc))
      if (auto v = parse_nvcc_version(*out)) return VersionFound{*v, "nvcc --version"};
  }
  return std::nullopt;
}

bool has_file_matching(const fs::path& dir, const std::regex& pattern) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), pattern)) return true;
  return false;
}

// A symlinked directory (lib64 -> lib, include -> targets/x86_64-linux/include) is written
// through, never replaced: record where it really is, relative to the root.
fs::path resolve_inside(const fs::path& root, const fs::path& rel) {
  std::error_code ec;
  fs::path real_root = fs::canonical(root, ec);
  if (ec) return rel;
  fs::path real = fs::canonical(root / rel, ec);
  if (ec) return rel;
  fs::path inside = real.lexically_relative(real_root);
  if (inside.empty() || *inside.begin() == "..") return rel;
  return inside;
}

// Where the runtime lives is where cuDNN belongs: lib64 / lib (toolkits from NVIDIA's installers),
// lib/<triplet> (distribution packages such as nvidia-cuda-toolkit in /usr), targets/<arch>/lib.
fs::path linux_lib_dir(const fs::path& root) {
  static const std::regex cudart(R"(libcudart\.so.*)");
  const char* candidates[] = {"lib64",
                              "lib",
                              "lib/x86_64-linux-gnu",
                              "lib/aarch64-linux-gnu",
                              "targets/x86_64-linux/lib",
                              "targets/sbsa-linux/lib",
                              "targets/aarch64-linux/lib"};
  for (const char* c : candidates)
    if (has_file_matching(root / c, cudart)) return c;
  std::error_code ec;
  for (const char* c : candidates)
    if (fs::is_directory(root / c, ec)) return c;
  return "lib64";
}

void fill_layout(Toolkit& tk) {
  static const std::regex cudart_dll(R"(cudart64_[0-9]+\.dll)", std::regex::icase);
  std::error_code ec;
  bool dll_in_x64 = has_file_matching(tk.root / "bin" / "x64", cudart_dll);
  bool windows =
      dll_in_x64 || has_file_matching(tk.root / "bin", cudart_dll) || fs::exists(tk.root / "bin/nvcc.exe", ec);
  tk.include_dir = resolve_inside(tk.root, "include");
  if (windows) {
    tk.os = TargetOs::Windows;
    tk.bin_dir = dll_in_x64 ? "bin/x64" : "bin";
    tk.import_lib_dir = "lib/x64";
    tk.lib_dir = "lib/x64";
    return;
  }
  tk.os = TargetOs::Linux;
  tk.lib_dir = resolve_inside(tk.root, linux_lib_dir(tk.root));
  tk.import_lib_dir = tk.lib_dir;
  for (fs::directory_iterator it(tk.root / "targets", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().ends_with("-linux")) tk.targets.push_back(it->path().filename().string());
  std::sort(tk.targets.begin(), tk.targets.end());
}

std::optional<std::string> env_value(const ToolkitSearch& search, const std::string& name) {
  for (const auto& [key, value] : search.environment)
    if (key == name && !value.empty()) return value;
  return std::nullopt;
}

struct Candidate {
  fs::path root;
  std::string found_by;
};

std::vector<Candidate> candidates(const ToolkitSearch& search) {
  std::vector<Candidate> out;
  for (const char* name : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"})
    if (auto v = env_value(search, name)) out.push_back({*v, name});
  static const std::regex versioned(R"(CUDA_PATH_V[0-9]+_[0-9]+)");
  for (const auto& [key, value] : search.environment)
    if (std::regex_match(key, versioned) && !value.empty()) out.push_back({value, key});
  if (auto path = env_value(search, "PATH")) {
    char sep = search.path_separator;
    std::stringstream ss(*path);
    std::error_code ec;
    for (std::string dir; std::getline(ss, dir, sep);)
      if (!dir.empty() && (fs::exists(fs::path(dir) / "nvcc", ec) || fs::exists(fs::path(dir) / "nvcc.exe", ec)))
        out.push_back({fs::path(dir).parent_path(), "nvcc on PATH"});
  }
  for (const auto& dir : search.default_dirs) out.push_back({dir, "default location"});
  return out;
}

std::string describe(const Toolkit& tk) {
  return "  " + tk.root.string() + "  (CUDA " + tk.version.to_string() + ", found by " + tk.found_by + ")";
}

}  // namespace

std::optional<std::string> linux_target_of(const std::string& platform) {
  if (platform == "linux-x86_64" || platform == "linux-x64") return "x86_64-linux";
  if (platform == "linux-sbsa" || platform == "linux-aarch64sbsa") return "sbsa-linux";
  if (platform == "linux-aarch64") return "aarch64-linux";
  if (platform == "linux-ppc64le") return "ppc64le-linux";
  return std::nullopt;
}

Result<Toolkit> probe_toolkit(const fs::path& root, std::string found_by, const ToolkitSearch& search) {
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return fail(ErrorCode::NoToolkit, "'" + root.string() + "' (" + found_by + ") is not a directory", root.string());
  auto version = read_version(root, search);
  if (!version)
    return fail(ErrorCode::NoToolkit,
                "'" + root.string() + "' (" + found_by +
                    ") does not look like a CUDA toolkit: no version.json, version.txt, include/cuda.h or bin/nvcc",
                root.string());
  Toolkit tk;
  tk.root = root;
  tk.version = version->version;
  tk.version_source = version->source;
  tk.found_by = std::move(found_by);
  fill_layout(tk);
  return tk;
}

std::vector<Toolkit> find_toolkits(const ToolkitSearch& search) {
  std::vector<Toolkit> found;
  std::vector<fs::path> seen;
  for (const auto& c : candidates(search)) {
    std::error_code ec;
    fs::path real = fs::weakly_canonical(c.root, ec);
    if (ec || std::find(seen.begin(), seen.end(), real) != seen.end()) continue;
    if (auto tk = probe_toolkit(c.root, c.found_by, search)) {
      seen.push_back(real);
      found.push_back(std::move(*tk));
    }
  }
  return found;
}

Result<Toolkit> choose_toolkit(const ToolkitSearch& search, std::optional<int> cuda_major) {
  if (search.cuda_root) return probe_toolkit(*search.cuda_root, "--cuda-root", search);
  auto all = find_toolkits(search);
  if (all.empty())
    return fail(ErrorCode::NoToolkit,
                "no CUDA toolkit found (looked at CUDA_PATH, CUDA_PATH_Vx_y, CUDA_HOME, nvcc on PATH and the default "
                "locations). Install the CUDA toolkit first, or pass --cuda-root DIR.");
  if (!cuda_major) {
    if (all.size() == 1) return all.front();
  } else {
    std::vector<Toolkit> matching;
    std::copy_if(all.begin(), all.end(), std::back_inserter(matching),
                 [&](const Toolkit& tk) { return tk.version.major == *cuda_major; });
    if (matching.size() == 1) return matching.front();
    if (matching.empty() && all.size() == 1) return all.front();  // the plan refuses it, naming both majors
    if (matching.empty()) {
      std::string list;
      for (const auto& tk : all) list += "\n" + describe(tk);
      return fail(ErrorCode::CudaMismatch, "the archive is built for CUDA " + std::to_string(*cuda_major) +
                                               " but no CUDA " + std::to_string(*cuda_major) +
                                               " toolkit was found. Found:" + list);
    }
    all = matching;
  }
  std::string list;
  for (const auto& tk : all) list += "\n" + describe(tk);
  return fail(ErrorCode::NoToolkit,
              "several CUDA toolkits could take this archive; choose one with --cuda-root:" + list);
}

std::optional<std::string> nvcc_version_output(ProcessRunner& runner, const fs::path& nvcc) {
  RunOptions options;
  options.timeout = std::chrono::seconds(30);
  auto ran = runner.run({util::path_utf8(nvcc), "--version"}, options);
  if (!ran || !ran->succeeded()) return std::nullopt;
  return ran->out;
}

}  // namespace cudnn_install
