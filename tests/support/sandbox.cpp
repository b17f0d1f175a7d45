#include "support/sandbox.hpp"

#include <spdlog/spdlog.h>
#ifndef _WIN32
#include <sys/wait.h>
#endif

#include <stdlib.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cudnn_install/utf8.hpp"

namespace fs = std::filesystem;

namespace cudnn_install::test {
namespace {

// A new directory of a unique name (mkdtemp; Windows has none, so a random name made once).
fs::path make_temp_dir(const std::string& prefix) {
#ifdef _WIN32
  static unsigned counter = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    fs::path p = fs::temp_directory_path() / (prefix + std::to_string(std::rand()) + "-" + std::to_string(++counter));
    if (fs::create_directory(p)) return p;
  }
  throw std::runtime_error("cannot create a temporary directory");
#else
  std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
  return pattern;
#endif
}

}  // namespace

TempDir::TempDir() : path_(make_temp_dir("cudnn-install-test-")) {}

TempDir::~TempDir() {
  std::error_code ec;
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

void write_file(const fs::path& path, const std::string& content) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << content;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void make_linux_toolkit(const fs::path& root, int cuda_version_number) {
  write_file(root / "include/cuda.h", "#define CUDA_VERSION " + std::to_string(cuda_version_number) + "\n");
  write_file(root / "lib/libcudart.so.13", "cudart");
  fs::create_directory_symlink("lib", root / "lib64");
  fs::create_directories(root / "bin");
}

void make_windows_toolkit(const fs::path& root, const std::string& version, bool dlls_in_x64) {
  write_file(root / "version.json", R"({"cuda": {"name": "CUDA SDK", "version": ")" + version + R"("}})");
  std::string major = version.substr(0, version.find('.'));
  write_file(root / (dlls_in_x64 ? "bin/x64" : "bin") / ("cudart64_" + major + ".dll"), "MZ cudart");
  fs::create_directories(root / "lib/x64");
  write_file(root / "include/cuda.h", "/* cuda.h */\n");
}

std::string archive_args(const fs::path& archive) {
  fs::path manifest = archive.parent_path() / "redistrib_local.json";
  if (!fs::exists(manifest)) return archive.string();
  return "--manifest " + manifest.string() + " " + archive.string();
}

#if !defined(_WIN32) && defined(CLI_PATH) && defined(SOURCE_DIR)
namespace {
// Every --json answer of the real binary goes through the contract's check (tests/support/json-answer.sh):
// one object, valid against docs/schema/<kind>.json, its exit_code the process's.
std::string with_json_check(const std::string& command) {
  std::size_t at = command.find(CLI_PATH);
  if (at == std::string::npos || command.find(" --json", at) == std::string::npos) return command;
  std::string checked = command;
  checked.insert(at, std::string("bash '") + SOURCE_DIR + "/tests/support/json-answer.sh' ");
  return checked;
}
}  // namespace
#else
static std::string with_json_check(const std::string& command) { return command; }
#endif

int run_command(const std::string& plain_command, std::string* output) {
  std::string command = with_json_check(plain_command);
#ifdef _WIN32
  // The command is UTF-8 (paths from path::string()); cmd.exe gets it as UTF-16, as a user's shell
  // would pass "C:\Users\José\...". cmd /c strips the outer quotes.
  FILE* pipe = _wpopen(utf8_path("\"" + command + " 2>&1\"").wstring().c_str(), L"r");
#else
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
#endif
  if (!pipe) return -1;
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
#ifdef _WIN32
  int status = _pclose(pipe);
  if (output) *output = out;
  return status;
#else
  int status = pclose(pipe);
  if (output) *output = out;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
#endif
}

}  // namespace cudnn_install::test

namespace {
// The library logs every file it writes (the install log); tests keep their output readable.
const bool quiet_library_log = [] {
  spdlog::set_level(spdlog::level::err);
  return true;
}();

// Never the machine's /etc: every test process (ctest runs one per test) gets a sandbox /etc
// for the loader configuration, and a harmless ldconfig. Children inherit both.
std::string sandbox_etc_dir;
#ifndef _WIN32
const bool sandbox_etc = [] {
  std::string pattern = cudnn_install::test::make_temp_dir("cudnn-install-test-etc-").string();
  sandbox_etc_dir = pattern;
  fs::create_directories(fs::path(pattern) / "ld.so.conf.d");
  std::ofstream(fs::path(pattern) / "ld.so.conf") << "include /etc/ld.so.conf.d/*.conf\n";
  setenv("CUDNN_INSTALL_ETC", pattern.c_str(), 1);
  setenv("CUDNN_INSTALL_LDCONFIG", "true", 1);
  std::atexit([] {
    std::error_code ec;
    fs::remove_all(sandbox_etc_dir, ec);
  });
  return true;
}();
#endif
}  // namespace
