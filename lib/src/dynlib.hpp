// Loading a shared library and finding its symbols: dlopen on Linux, LoadLibraryExW on Windows
// (dynlib_posix.cpp / dynlib_win32.cpp). Used by the probe and the bench, which declare the cuDNN
// and driver signatures themselves so no CUDA header is needed, and by the libraries loaded on
// demand (shared_library.hpp), which are opened by soname from the system's search path.
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

template <class Fn>
Fn function(void* lib, const char* name) {
  return reinterpret_cast<Fn>(symbol(lib, name));
}

}  // namespace cudnn_install::dynlib
