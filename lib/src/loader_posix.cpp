#include <fnmatch.h>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>

#include <zlib.h>

#include "base/util.hpp"
#include "cudnn_install/loader.hpp"
#include "cudnn_install/shell_quote.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// One ld.so.conf.d entry per toolkit path, so that two toolkits of one CUDA version never share
// (and roll back) each other's entry: cudnn-install-<path, '/' as '-'>-<CRC-32 of the path>.conf
// (the CRC keeps "/a-b" and "/a/b" apart; the name stays under 255 bytes).
std::string conf_name_for(const fs::path& root) {
  std::string path = root.lexically_normal().generic_string();
  while (path.size() > 1 && path.ends_with('/')) path.pop_back();
  std::string readable;
  for (char c : path) {
    bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '+';
    if (readable.size() < 160 && (plain || !readable.empty())) readable += plain ? c : '-';
  }
  auto crc = crc32(0, reinterpret_cast<const Bytef*>(path.data()), static_cast<uInt>(path.size()));
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08lx", static_cast<unsigned long>(crc));
  return "cudnn-install-" + readable + "-" + hex + ".conf";
}

// "include" patterns are relative to /etc; in a sandbox they are rebased onto env.etc.
fs::path rebase(const std::string& pattern, const LoaderEnv& env) {
  fs::path p(pattern);
  if (p.is_relative()) return env.etc / p;
  std::string s = p.string();
  return s.starts_with("/etc/") ? env.etc / s.substr(5) : p;
}

// The files an "include" pattern names, sorted as glob sorts them, with the pending ones it matches.
std::vector<fs::path> included_files(const fs::path& pattern, const LoaderEnv& env) {
  std::vector<fs::path> files;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) files.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  for (const auto& [path, content] : env.pending_files)
    if (::fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME | FNM_PERIOD) == 0 &&
        std::find(files.begin(), files.end(), path) == files.end())
      files.push_back(path);
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) { return a.native() < b.native(); });
  return files;
}

std::optional<std::string> conf_text(const fs::path& file, const LoaderEnv& env) {
  for (const auto& [path, content] : env.pending_files)
    if (path == file) return content;
  return util::read_text_file(file);
}

void read_conf(const fs::path& file, const LoaderEnv& env, std::vector<fs::path>& dirs, int depth) {
  auto text = conf_text(file, env);
  if (!text || depth > 8) return;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    if (line.starts_with("include ")) {
      for (const auto& f : included_files(rebase(trim(line.substr(8)), env), env)) read_conf(f, env, dirs, depth + 1);
    } else {
      dirs.emplace_back(line);
    }
  }
}

bool same_dir(const fs::path& a, const fs::path& b) {
  std::error_code ea, eb;
  fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

std::string chain_version(const fs::path& lib) {
  std::error_code ec;
  std::string real = fs::canonical(lib, ec).filename().string();
  std::smatch m;
  static const std::regex v(R"(\.so\.([0-9]+\.[0-9]+\.[0-9]+)$)");
  return std::regex_search(real, m, v) ? m[1].str() : std::string();
}

// A path whose real path is inside the toolkit's real library directory is the toolkit's own copy,
// whatever links lead there (lib64 -> lib, /usr/lib/libcudnn.so.9 -> the toolkit's file). The
// library directory, not the root: a toolkit in /usr must not own /usr/local/lib.
bool inside_toolkit(const fs::path& path, const Toolkit& tk) {
  std::error_code ep, er;
  fs::path real = fs::weakly_canonical(path, ep), real_lib = fs::weakly_canonical(tk.root / tk.lib_dir, er);
  if (ep || er) return false;
  fs::path rel = real.lexically_relative(real_lib);
  return !rel.empty() && *rel.begin() != ".." && *rel.begin() != ".";
}

// Adds dir/name when it exists and is not the toolkit's nor already listed; true when it added it.
bool look_in(const fs::path& dir, const std::string& where, const std::string& name, const Toolkit& tk,
             std::vector<Shadow>& out) {
  std::error_code ec;
  if (!fs::exists(dir / name, ec) || inside_toolkit(dir / name, tk)) return false;
  for (const auto& s : out)
    if (same_dir(fs::path(s.path).parent_path(), dir)) return false;
  out.push_back({(dir / name).string(), chain_version(dir / name), where});
  return true;
}

}  // namespace

std::vector<fs::path> ld_so_conf_dirs(const LoaderEnv& env) {
  std::vector<fs::path> dirs;
  read_conf(env.etc / "ld.so.conf", env, dirs, 0);
  return dirs;
}

bool loader_searches(const fs::path& dir, const LoaderEnv& env) {
  for (const auto& d : ld_so_conf_dirs(env))
    if (same_dir(d, dir)) return true;
  for (const auto& d : env.default_dirs)
    if (same_dir(d, dir)) return true;
  return false;
}

LoaderChange plan_loader_change(const Toolkit& tk, const LoaderEnv& env, LoaderMode mode) {
  LoaderChange c;
  fs::path lib = tk.root / tk.lib_dir;
  std::error_code ec;
  fs::path real = fs::weakly_canonical(lib, ec);
  if (mode == LoaderMode::Skip) {
    c.reason = "loader configuration not changed (--no-path)";
    return c;
  }
  if (loader_searches(lib, env)) {
    c.reason = "the loader already searches " + lib.string();
    return c;
  }
  c.mode = mode;
  c.conf_file = (env.etc / "ld.so.conf.d" / conf_name_for(tk.root)).string();
  c.conf_content = (ec ? lib : real).string() + "\n";
  c.shell_line = export_prepend_line("LD_LIBRARY_PATH", (ec ? lib : real).string());
  c.reason = mode == LoaderMode::System
                 ? "the loader does not search " + lib.string() + ": adding " + c.conf_file
                 : "the loader does not search " + lib.string() + "; add this to your shell profile:";
  return c;
}

// Copies in dirs, in the loader's order, up to the toolkit's own directory (after which the rest
// is shadowed by it); true when that directory was reached.
bool look_until_ours(const std::vector<fs::path>& dirs, const std::string& where, const std::string& name,
                     const Toolkit& tk, std::vector<Shadow>& out) {
  for (const auto& d : dirs) {
    if (same_dir(d, tk.root / tk.lib_dir)) return true;
    look_in(d, where, name, tk, out);
  }
  return false;
}

std::vector<Shadow> find_shadowing(const Toolkit& tk, int major, const LoaderEnv& env) {
  std::string name = "libcudnn.so." + std::to_string(major);
  std::vector<fs::path> ld_library_path;
  std::istringstream path(env.ld_library_path);
  for (std::string dir; std::getline(path, dir, ':');)
    if (!dir.empty()) ld_library_path.emplace_back(dir);
  std::vector<Shadow> out;
  if (!look_until_ours(ld_library_path, "LD_LIBRARY_PATH", name, tk, out) &&
      !look_until_ours(ld_so_conf_dirs(env), "ld.so.conf", name, tk, out))
    look_until_ours(env.default_dirs, "system directory", name, tk, out);
  if (env.conda_prefix) look_in(*env.conda_prefix / "lib", "conda environment", name, tk, out);
  if (env.virtual_env) {
    glob_t g{};
    std::string pattern = (*env.virtual_env / "lib/python3*/site-packages/nvidia/cudnn/lib").string();
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
      for (size_t i = 0; i < g.gl_pathc; ++i)
        if (look_in(g.gl_pathv[i], "virtualenv (pip nvidia-cudnn wheel)", name, tk, out)) out.back().pip_wheel = true;
    ::globfree(&g);
  }
  return out;
}

Result<void> run_ldconfig(const LoaderEnv& env, ProcessRunner& runner) {
  auto ran = runner.run({env.ldconfig}, RunOptions{});
  if (!ran)
    return fail(ErrorCode::Io, ran.error().message + ": run ldconfig yourself so that the loader sees the change");
  if (!ran->succeeded())
    return fail(ErrorCode::Io, "'" + env.ldconfig + "' failed (" + ran->describe() +
                                   "): run it yourself so that the loader sees the change");
  return {};
}

LoaderEnv system_loader_env() {
  LoaderEnv env;
  auto get = [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    return v && *v ? std::optional<std::string>(v) : std::nullopt;
  };
  env.ld_library_path = get("LD_LIBRARY_PATH").value_or("");
  if (auto v = get("CONDA_PREFIX")) env.conda_prefix = *v;
  if (auto v = get("VIRTUAL_ENV")) env.virtual_env = *v;
  // For packaging into a chroot and for tests: another /etc and another ldconfig.
  if (auto v = get("CUDNN_INSTALL_ETC")) env.etc = *v;
  if (auto v = get("CUDNN_INSTALL_LDCONFIG")) env.ldconfig = *v;
  return env;
}

}  // namespace cudnn_install
