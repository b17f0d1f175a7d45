#include "cudnn_install/frameworks.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>

#include "base/util.hpp"
#include "cudnn_install/utf8.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::optional<std::string> match(std::string_view text, const std::regex& re, int group = 1) {
  std::string s(text);
  std::smatch m;
  if (!std::regex_search(s, m, re)) return std::nullopt;
  return m[group].str();
}

void add_if_dir(std::vector<fs::path>& dirs, const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  for (const auto& d : dirs)
    if (d == dir) return;
  dirs.push_back(dir);
}

// prefix/lib/python3.X/{site,dist}-packages, Debian's prefix/lib/python3/dist-packages, and
// Windows' prefix\Lib\site-packages.
void add_prefix(std::vector<fs::path>& dirs, const fs::path& prefix) {
  std::error_code ec;
  for (fs::directory_iterator it(prefix / "lib", ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->path().filename().string().starts_with("python3")) continue;
    add_if_dir(dirs, it->path() / "site-packages");
    add_if_dir(dirs, it->path() / "dist-packages");
  }
  add_if_dir(dirs, prefix / "Lib" / "site-packages");
}

// The environment of the first python on PATH: bin/python3 -> its parent; python.exe -> its folder.
std::optional<fs::path> first_python_prefix(const PythonEnvironment& env) {
  std::stringstream entries(env.path);
  std::string entry;
  while (std::getline(entries, entry, env.path_separator)) {
    if (entry.empty()) continue;
    fs::path dir = utf8_path(entry);
    std::error_code ec;
    if (fs::exists(dir / "python.exe", ec)) return dir;
    if (fs::exists(dir / "python3", ec) || fs::exists(dir / "python", ec)) return dir.parent_path();
  }
  return std::nullopt;
}

std::string dist_info_version(const fs::path& site, const std::string& package) {
  std::error_code ec;
  for (fs::directory_iterator it(site, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (name.starts_with(package + "-") && name.ends_with(".dist-info"))
      return name.substr(package.size() + 1, name.size() - package.size() - 1 - std::string(".dist-info").size());
  }
  return "";
}

}  // namespace

std::optional<int> Framework::cuda_major() const {
  if (cuda.empty()) return std::nullopt;
  try {
    return std::stoi(cuda);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<Framework> parse_torch_version_py(std::string_view text) {
  static const std::regex version(R"((^|\n)__version__\s*=\s*['"]([^'"]+)['"])");
  static const std::regex cuda(R"((^|\n)cuda\s*(:[^=\n]*)?=\s*(None|['"]([0-9.]+)['"]))");
  auto v = match(text, version, 2);
  auto c = match(text, cuda, 3);
  if (!v || !c) return std::nullopt;
  Framework f{"PyTorch", *v, *c == "None" ? "" : match(text, cuda, 4).value_or(""), std::nullopt, ""};
  return f;
}

std::optional<Framework> parse_tensorflow_build_info(std::string_view text) {
  static const std::regex cuda(R"(['"]cuda_version['"]\s*[,:]\s*['"]([0-9.]*)['"])");
  static const std::regex cudnn(R"(['"]cudnn_version['"]\s*[,:]\s*['"]([0-9]+))");
  static const std::regex is_cuda(R"(['"]is_cuda_build['"]\s*[,:]\s*(True|False))");
  auto c = match(text, cuda);
  auto built = match(text, is_cuda);
  if (!c && !built) return std::nullopt;
  Framework f{"TensorFlow", "", built == "False" ? "" : c.value_or(""), std::nullopt, ""};
  if (auto d = match(text, cudnn)) f.cudnn_major = std::stoi(*d);
  return f;
}

PythonEnvironment current_python_environment() {
  auto get = [](const char* name) { return environment_variable(name).value_or(""); };
  PythonEnvironment env{get("VIRTUAL_ENV"), get("CONDA_PREFIX"), get("PATH"), get("HOME"), ':'};
#ifdef _WIN32
  env.path_separator = ';';
  env.home = get("APPDATA");
#endif
  return env;
}

std::vector<fs::path> site_packages_dirs(const PythonEnvironment& env) {
  std::vector<fs::path> dirs;
  if (!env.virtual_env.empty()) add_prefix(dirs, utf8_path(env.virtual_env));
  if (!env.conda_prefix.empty()) add_prefix(dirs, utf8_path(env.conda_prefix));
  if (auto prefix = first_python_prefix(env)) {
    add_prefix(dirs, *prefix);
    if (*prefix == "/usr") add_prefix(dirs, "/usr/local");  // Debian: pip installs there
  }
  if (!env.home.empty()) {
    add_prefix(dirs, utf8_path(env.home) / ".local");  // POSIX user site
    std::error_code ec;                                // Windows user site: %APPDATA%\Python\Python3X\site-packages
    for (fs::directory_iterator it(utf8_path(env.home) / "Python", ec), end; !ec && it != end; it.increment(ec))
      add_if_dir(dirs, it->path() / "site-packages");
  }
  return dirs;
}

namespace {

std::optional<Framework> torch_in(const fs::path& site) {
  auto text = util::read_text_file(site / "torch" / "version.py");
  auto torch = text ? parse_torch_version_py(*text) : std::nullopt;
  if (torch) torch->where = (site / "torch").string();
  return torch;
}

std::optional<Framework> tensorflow_in(const fs::path& site) {
  auto text = util::read_text_file(site / "tensorflow" / "python" / "platform" / "build_info.py");
  auto tensorflow = text ? parse_tensorflow_build_info(*text) : std::nullopt;
  if (tensorflow) {
    tensorflow->where = (site / "tensorflow").string();
    tensorflow->version = dist_info_version(site, "tensorflow");
  }
  return tensorflow;
}

}  // namespace

std::vector<Framework> find_frameworks(const std::vector<fs::path>& site_dirs) {
  std::optional<Framework> torch, tensorflow;
  for (const auto& site : site_dirs) {
    if (!torch) torch = torch_in(site);
    if (!tensorflow) tensorflow = tensorflow_in(site);
  }
  std::vector<Framework> found;
  for (auto* f : {&torch, &tensorflow})
    if (*f) found.push_back(**f);
  return found;
}

}  // namespace cudnn_install
