#include <dlfcn.h>

#include "base/dynlib.hpp"

namespace cudnn_install::dynlib {

void* open(const std::filesystem::path& path) { return dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); }
void* open_driver() { return dlopen(driver_name(), RTLD_NOW | RTLD_LOCAL); }
const char* driver_name() { return "libcuda.so.1"; }
void* symbol(void* lib, const char* name) { return dlsym(lib, name); }
std::string last_error() {
  const char* e = dlerror();
  return e ? e : "unknown error";
}

}  // namespace cudnn_install::dynlib
