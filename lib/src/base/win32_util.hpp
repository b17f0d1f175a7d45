// Small helpers of the Windows sources: UTF-8 <-> UTF-16 and readable Win32 error messages.
#pragma once
#include <windows.h>

#include <string>
#include <string_view>

namespace cudnn_install::win32 {

std::wstring widen(std::string_view utf8);
std::string narrow(std::wstring_view utf16);
// "Access is denied. (error 5)"
std::string error_text(DWORD code);
// The console behind a standard handle (STD_INPUT_HANDLE, ...); nullptr when it is a file, a pipe or nothing.
HANDLE std_console(DWORD std_handle);
// What to do when Windows denies a change that needs an administrator (a toolkit under
// C:\Program Files, the machine's environment): this program runs asInvoker (its manifest), so
// it must be started elevated.
inline constexpr std::string_view kElevationHint =
    "run this from an Administrator PowerShell (right-click PowerShell, \"Run as administrator\")";

// Closes a HANDLE when it goes out of scope.
class Handle {
 public:
  explicit Handle(HANDLE h = INVALID_HANDLE_VALUE) : h_(h) {}
  ~Handle() { reset(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : h_(o.h_) { o.h_ = INVALID_HANDLE_VALUE; }
  Handle& operator=(Handle&& o) noexcept {
    if (this == &o) return *this;
    reset();
    h_ = o.h_;
    o.h_ = INVALID_HANDLE_VALUE;
    return *this;
  }
  HANDLE get() const { return h_; }
  bool valid() const { return h_ != INVALID_HANDLE_VALUE && h_ != nullptr; }
  void reset() {
    if (valid()) CloseHandle(h_);
    h_ = INVALID_HANDLE_VALUE;
  }

 private:
  HANDLE h_;
};

}  // namespace cudnn_install::win32
