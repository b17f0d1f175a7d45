// Which processes hold a file, on Windows: the Restart Manager (RmStartSession,
// RmRegisterResources with the full paths, RmGetList), as installers do. A PID is reported only
// if the process running under it now started when Restart Manager saw it (PIDs are reused).
// Under Wine, Restart Manager is a stub that always answers "nobody": that is reported as unknown.
#include <windows.h>

#include <restartmanager.h>

#include "base/try.hpp"
#include "base/win32_util.hpp"
#include "cudnn_install/locks.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

bool running_under_wine() {
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  return ntdll && GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

bool same_process(const RM_UNIQUE_PROCESS& p) {
  win32::Handle h(OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, p.dwProcessId));
  if (!h.valid()) return true;  // cannot look: keep it (unknown is never free)
  FILETIME created, exited, kernel, user;
  if (!GetProcessTimes(h.get(), &created, &exited, &kernel, &user)) return true;
  return CompareFileTime(&created, &p.ProcessStartTime) == 0;
}

std::string program_path(DWORD pid, const wchar_t* app_name) {
  win32::Handle h(OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid));
  wchar_t path[MAX_PATH * 2];
  DWORD n = MAX_PATH * 2;
  if (h.valid() && QueryFullProcessImageNameW(h.get(), 0, path, &n)) return win32::narrow(std::wstring_view(path, n));
  return win32::narrow(app_name);
}

// One Restart Manager session over all files; the holders of any of them.
Result<std::vector<RM_PROCESS_INFO>> rm_holders(const std::vector<WatchedFile>& files) {
  DWORD session = 0;
  WCHAR key[CCH_RM_SESSION_KEY + 1] = {};
  if (DWORD rc = RmStartSession(&session, 0, key); rc != ERROR_SUCCESS)
    return fail(ErrorCode::Io, "Restart Manager cannot start: " + win32::error_text(rc));
  std::vector<std::wstring> paths;
  paths.reserve(files.size());
  for (const auto& f : files) paths.push_back(win32::widen(f.path));
  std::vector<LPCWSTR> names;
  names.reserve(paths.size());
  for (const auto& p : paths) names.push_back(p.c_str());
  std::vector<RM_PROCESS_INFO> info;
  DWORD rc = RmRegisterResources(session, static_cast<UINT>(names.size()), names.data(), 0, nullptr, 0, nullptr);
  for (UINT needed = 8, count = 0; rc == ERROR_SUCCESS || rc == ERROR_MORE_DATA;) {
    info.resize(needed);
    count = needed;
    DWORD reasons = 0;
    rc = RmGetList(session, &needed, &count, info.data(), &reasons);
    if (rc == ERROR_SUCCESS) {
      info.resize(count);
      break;
    }
  }
  RmEndSession(session);
  if (rc != ERROR_SUCCESS)
    return fail(ErrorCode::Io, "Restart Manager cannot list the processes: " + win32::error_text(rc));
  return info;
}

class RestartManagerFinder final : public ProcessFinder {
 public:
  Result<HolderScan> find_holders(const std::vector<WatchedFile>& files) override {
    HolderScan scan;
    if (files.empty()) return scan;
    if (running_under_wine()) {
      scan.unavailable = "Restart Manager is a stub under Wine";
      return scan;
    }
    for (const auto& file : files) {  // one session per file, so each holder is named with its file
      TRY_ASSIGN(auto info, rm_holders({file}));
      for (const auto& p : info) {
        if (!same_process(p.Process)) continue;
        Holder h;
        h.pid = static_cast<long>(p.Process.dwProcessId);
        h.program = program_path(p.Process.dwProcessId, p.strAppName);
        h.user = p.strServiceShortName[0] ? "service " + win32::narrow(p.strServiceShortName) : "";
        h.file = file.path;
        scan.holders.push_back(std::move(h));
      }
    }
    return scan;
  }
};

}  // namespace

std::unique_ptr<ProcessFinder> make_process_finder() { return std::make_unique<RestartManagerFinder>(); }

std::optional<FileId> file_id(const fs::path& path) {
  win32::Handle h(CreateFileW(path.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                              OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  BY_HANDLE_FILE_INFORMATION info;
  if (!h.valid() || !GetFileInformationByHandle(h.get(), &info)) return std::nullopt;
  return FileId{info.dwVolumeSerialNumber,
                (static_cast<unsigned long long>(info.nFileIndexHigh) << 32) | info.nFileIndexLow};
}

}  // namespace cudnn_install
