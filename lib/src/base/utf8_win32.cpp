// UTF-8 text from the wide Windows APIs: the environment and the command line.
#include <windows.h>
// windows.h first: shellapi.h needs its types.
#include <shellapi.h>

#include <cstdlib>

#include "base/win32_util.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {

std::optional<std::string> environment_variable(const char* name) {
  const wchar_t* value = _wgetenv(win32::widen(name).c_str());
  if (!value || !*value) return std::nullopt;
  return win32::narrow(value);
}

std::vector<std::string> command_line_arguments(int argc, char** argv) {
  int count = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (!wide) return {argv, argv + argc};
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) out.push_back(win32::narrow(wide[i]));
  LocalFree(wide);
  return out;
}

Utf8Console::Utf8Console() {
  UINT current = GetConsoleOutputCP();  // 0 without a console
  if (current != 0 && current != CP_UTF8 && SetConsoleOutputCP(CP_UTF8)) saved_code_page_ = current;
}

Utf8Console::~Utf8Console() {
  if (saved_code_page_ != 0) SetConsoleOutputCP(saved_code_page_);
}

}  // namespace cudnn_install
