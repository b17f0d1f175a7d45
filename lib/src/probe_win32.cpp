// The runtime probe's child process (Windows): this program re-run as "__probe LIB" with
// CreateProcessW, its answer read from a pipe. A library that crashes ends the child with an
// exception code (0xC0000005 and friends), which is reported instead of taking down the install.
#include <windows.h>

#include <cstdio>
#include <thread>

#include "cudnn_install/verify.hpp"
#include "win32_util.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::string read_all(HANDLE h) {
  std::string out;
  char buf[4096];
  DWORD n = 0;
  while (ReadFile(h, buf, sizeof buf, &n, nullptr) && n > 0) out.append(buf, n);
  return out;
}

// One argument quoted as CommandLineToArgvW reads it back.
std::wstring quoted(const std::wstring& arg) {
  std::wstring out = L"\"";
  for (size_t i = 0; i < arg.size(); ++i) {
    size_t slashes = 0;
    while (i < arg.size() && arg[i] == L'\\') ++slashes, ++i;
    if (i == arg.size()) {
      out.append(slashes * 2, L'\\');
      break;
    }
    if (arg[i] == L'"')
      out.append(slashes * 2 + 1, L'\\');
    else
      out.append(slashes, L'\\');
    out.push_back(arg[i]);
  }
  return out + L"\"";
}

struct Pipe {
  win32::Handle read, write;
  bool open() {
    SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
    HANDLE r = nullptr, w = nullptr;
    if (!CreatePipe(&r, &w, &inherit, 0)) return false;
    SetHandleInformation(r, HANDLE_FLAG_INHERIT, 0);  // only the child's end is inherited
    read = win32::Handle(r);
    write = win32::Handle(w);
    return true;
  }
};

std::string exception_name(DWORD code) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08lX", static_cast<unsigned long>(code));
  std::string name = code == 0xC0000005   ? "access violation"
                     : code == 0xC0000409 ? "stack buffer overrun / abort"
                     : code == 0xC0000135 ? "a DLL it needs was not found"
                     : code == 0xC000007B ? "a 32-bit or corrupt DLL"
                                          : "exception";
  return name + ", " + hex;
}

}  // namespace

fs::path current_executable() {
  std::wstring buf(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
  buf.resize(n);
  return fs::path(buf);
}

ProbeResult probe_in_child(const fs::path& self_exe, const fs::path& library) {
  ProbeResult r;
  Pipe out, err;
  if (!out.open() || !err.open()) {
    r.detail = "cannot start the probe: " + win32::error_text(GetLastError());
    return r;
  }
  std::wstring command = quoted(self_exe.wstring()) + L" __probe " + quoted(library.wstring());
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  si.hStdOutput = out.write.get();
  si.hStdError = err.write.get();
  PROCESS_INFORMATION pi{};
  if (!CreateProcessW(self_exe.c_str(), command.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW, nullptr, nullptr, &si,
                      &pi)) {
    r.detail = "cannot start the probe " + self_exe.string() + ": " + win32::error_text(GetLastError());
    return r;
  }
  win32::Handle process(pi.hProcess), thread(pi.hThread);
  out.write.reset();
  err.write.reset();
  std::string errors;
  std::thread drain([&] { errors = read_all(err.read.get()); });  // both pipes at once: no deadlock
  std::string answer = read_all(out.read.get());
  drain.join();
  WaitForSingleObject(process.get(), INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(process.get(), &code);
  if (code >= 0xC0000000) {
    r.load = ProbeResult::Load::Crashed;
    r.detail = "the library crashed the probe process (" + exception_name(code) + ")" +
               (errors.empty() ? "" : ": " + errors.substr(0, 400));
    return r;
  }
  auto json = nlohmann::json::parse(answer, nullptr, false);
  if (json.is_discarded()) {
    r.detail = "the probe answered nothing readable (exit code " + std::to_string(code) + ")" +
               (errors.empty() ? std::string() : ": " + errors.substr(0, 400));
    return r;
  }
  return probe_from_json(json);
}

}  // namespace cudnn_install
