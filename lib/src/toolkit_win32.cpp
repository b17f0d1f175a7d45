// Windows inputs for toolkit detection: the process environment (CUDA_PATH, CUDA_PATH_Vx_y, PATH),
// the keys NVIDIA's installer writes under HKLM\SOFTWARE\NVIDIA Corporation\GPU Computing Toolkit\CUDA,
// the default "%ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\vX.Y" directories, and nvcc.
#include <windows.h>

#include <algorithm>
#include <regex>

#include "base/win32_util.hpp"
#include "cudnn_install/toolkit.hpp"
#include "toolkit_identity.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

constexpr const wchar_t* kNvidiaKey = L"SOFTWARE\\NVIDIA Corporation\\GPU Computing Toolkit\\CUDA";

// InstallDir of every vX.Y subkey, newest first.
std::vector<fs::path> registry_dirs() {
  std::vector<fs::path> dirs;
  HKEY key = nullptr;
  if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, kNvidiaKey, 0, KEY_READ, &key) != ERROR_SUCCESS) return dirs;
  wchar_t name[256];
  for (DWORD i = 0;; ++i) {
    DWORD len = 256;
    if (RegEnumKeyExW(key, i, name, &len, nullptr, nullptr, nullptr, nullptr) != ERROR_SUCCESS) break;
    wchar_t dir[MAX_PATH * 2] = {};
    DWORD bytes = sizeof dir - sizeof(wchar_t);
    if (RegGetValueW(key, name, L"InstallDir", RRF_RT_REG_SZ, nullptr, dir, &bytes) == ERROR_SUCCESS)
      dirs.emplace_back(dir);
  }
  RegCloseKey(key);
  std::sort(dirs.rbegin(), dirs.rend());
  return dirs;
}

std::vector<fs::path> default_dirs() {
  std::vector<fs::path> dirs = registry_dirs();
  wchar_t program_files[MAX_PATH] = {};
  if (!GetEnvironmentVariableW(L"ProgramFiles", program_files, MAX_PATH)) wcscpy(program_files, L"C:\\Program Files");
  fs::path base = fs::path(program_files) / L"NVIDIA GPU Computing Toolkit" / L"CUDA";
  static const std::wregex versioned(LR"(v[0-9]+\.[0-9]+)");
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().wstring(), versioned)) found.push_back(it->path());
  std::sort(found.rbegin(), found.rend());
  dirs.insert(dirs.end(), found.begin(), found.end());
  return dirs;
}

// The path the system itself resolves the directory to (junctions, symlinks, 8.3 names), or "".
std::wstring final_path_of(const fs::path& dir) {
  HANDLE h = CreateFileW(dir.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (h == INVALID_HANDLE_VALUE) return {};
  std::wstring out(32768, L'\0');
  DWORD n = GetFinalPathNameByHandleW(h, out.data(), static_cast<DWORD>(out.size()), FILE_NAME_NORMALIZED);
  CloseHandle(h);
  if (n == 0 || n >= out.size()) return {};
  out.resize(n);
  return out;
}

}  // namespace

std::string toolkit_dir_identity(const fs::path& dir) {
  std::wstring real = final_path_of(dir);
  if (real.empty()) {
    std::error_code ec;
    real = fs::weakly_canonical(dir, ec).wstring();
    if (ec) return {};
  }
  CharLowerBuffW(real.data(), static_cast<DWORD>(real.size()));  // NTFS names compare without case
  return win32::narrow(real);
}

fs::path real_path_of(const fs::path& path) {
  std::error_code ec;
  fs::path existing = fs::absolute(path, ec).lexically_normal(), rest;
  if (ec) return {};
  while (!fs::exists(existing, ec) && existing.has_relative_path()) {
    rest = rest.empty() ? existing.filename() : existing.filename() / rest;
    existing = existing.parent_path();
  }
  std::wstring real = final_path_of(existing);
  if (real.empty()) return {};
  if (real.starts_with(L"\\\\?\\UNC\\"))  // \\?\UNC\server\share: \\server\share
    real = L"\\\\" + real.substr(8);
  else if (real.starts_with(L"\\\\?\\"))
    real = real.substr(4);
  fs::path out(real);
  return rest.empty() ? out : (out / rest).lexically_normal();
}

ToolkitSearch system_toolkit_search(std::optional<fs::path> cuda_root, ProcessRunner& runner) {
  ToolkitSearch search;
  search.cuda_root = std::move(cuda_root);
  search.path_separator = ';';
  wchar_t* block = GetEnvironmentStringsW();
  for (const wchar_t* e = block; e && *e; e += wcslen(e) + 1) {
    std::string kv = win32::narrow(e);
    size_t eq = kv.find('=', 1);  // "=C:=C:\..." entries start with '='
    if (eq == std::string::npos) continue;
    std::string name = kv.substr(0, eq);  // names are case-insensitive on Windows ("Path"): one spelling
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
    search.environment.emplace_back(name, kv.substr(eq + 1));
  }
  if (block) FreeEnvironmentStringsW(block);
  search.default_dirs = default_dirs();
  search.run_nvcc = [&runner](const fs::path& nvcc) { return nvcc_version_output(runner, nvcc); };
  return search;
}

}  // namespace cudnn_install
