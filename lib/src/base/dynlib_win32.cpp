#include <windows.h>

#include "base/dynlib.hpp"
#include "base/win32_util.hpp"

namespace cudnn_install::dynlib {

// LOAD_WITH_ALTERED_SEARCH_PATH: the library's dependencies (cudnn_ops64_9.dll, ...) are found
// beside it first, as they would be for a program that put the toolkit's directory on PATH.
void* open(const std::filesystem::path& path) {
  return reinterpret_cast<void*>(LoadLibraryExW(path.wstring().c_str(), nullptr, LOAD_WITH_ALTERED_SEARCH_PATH));
}
void* open_driver() { return reinterpret_cast<void*>(LoadLibraryW(L"nvcuda.dll")); }
const char* driver_name() { return "nvcuda.dll"; }
void* symbol(void* lib, const char* name) {
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(lib), name));
}
std::string last_error() { return win32::error_text(GetLastError()); }

}  // namespace cudnn_install::dynlib
