// Loading a shared library and binding its functions: dlopen on Linux, LoadLibraryExW on Windows
// (dynlib_posix.cpp / dynlib_win32.cpp). Only for the libraries that must be opened at run time:
// cuDNN and the CUDA driver (the runtime probe and the bench), whose signatures are declared where
// they are used, so that no CUDA header is needed to build and no CUDA library to start.
#pragma once
#include <filesystem>
#include <string>

namespace cudnn_install::dynlib {

// An absolute path, or a bare soname looked up on the search path. nullptr on failure;
// last_error() says why. Never unloaded: the process is short-lived.
void* open(const std::filesystem::path& path);
void* open_driver();  // libcuda.so.1 / nvcuda.dll, from the system's search path
const char* driver_name();
void* symbol(void* lib, const char* name);
std::string last_error();

// Points `function` at the symbol `name` of `lib`. When the library lacks it, `function` is null
// and the name is added to `missing` (", " between names), so one message can list every gap.
template <class Fn>
bool bind(void* lib, Fn& function, const char* name, std::string& missing) {
  function = reinterpret_cast<Fn>(symbol(lib, name));
  if (!function) missing += std::string(missing.empty() ? "" : ", ") + name;
  return function != nullptr;
}

}  // namespace cudnn_install::dynlib
