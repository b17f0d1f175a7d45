#include <dlfcn.h>

#include <string>

#include "shared_library.hpp"

namespace cudnn_install {
namespace {

std::string last_dl_error() {
  const char* why = dlerror();
  return why ? why : "unknown error";
}

std::string how_to_get(const SharedLibrary& library) {
  if (*library.package == '\0')
    return "Install the package that ships " + std::string(library.soname) + " with your system's package manager.";
  return "Install it with: sudo apt-get install " + std::string(library.package);
}

}  // namespace

Result<void*> open_shared_library(const SharedLibrary& library) {
  if (void* handle = dlopen(library.soname, RTLD_NOW | RTLD_LOCAL)) return handle;
  return fail(ErrorCode::Io,
              std::string("cannot load ") + library.soname + ", which cudnn-install needs to " + library.purpose +
                  ": " + last_dl_error() + ". " + how_to_get(library),
              library.soname);
}

Result<void*> find_function(void* handle, const SharedLibrary& library, const char* name) {
  if (void* function = dlsym(handle, name)) return function;
  return fail(ErrorCode::Io,
              std::string(library.soname) + " has no function " + name + " (" + last_dl_error() +
                  "): it is older than the one cudnn-install was built with. " + how_to_get(library),
              library.soname);
}

}  // namespace cudnn_install
