// The advice around dynlib's open and symbol when a library loaded on demand is missing.
#include "shared_library.hpp"

#include <string>

#include "dynlib.hpp"

namespace cudnn_install {
namespace {

std::string how_to_get(const SharedLibrary& library) {
  if (*library.package == '\0')
    return "Install the package that ships " + std::string(library.soname) + " with your system's package manager.";
  return "Install it with: sudo apt-get install " + std::string(library.package);
}

}  // namespace

Result<void*> open_shared_library(const SharedLibrary& library) {
  if (void* handle = dynlib::open(library.soname)) return handle;
  return fail(ErrorCode::Io,
              std::string("cannot load ") + library.soname + ", which cudnn-install needs to " + library.purpose +
                  ": " + dynlib::last_error() + ". " + how_to_get(library),
              library.soname);
}

Result<void*> find_function(void* handle, const SharedLibrary& library, const char* name) {
  if (void* function = dynlib::symbol(handle, name)) return function;
  return fail(ErrorCode::Io,
              std::string(library.soname) + " has no function " + name + " (" + dynlib::last_error() +
                  "): it is older than the one cudnn-install was built with. " + how_to_get(library),
              library.soname);
}

}  // namespace cudnn_install
