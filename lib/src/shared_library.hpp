// Opening a system library by its soname when it is first needed (dlopen), with a message that
// names the Debian package to install when it is missing. Used by lazy_libs_dlopen.cpp.
#pragma once
#include "cudnn_install/error.hpp"

namespace cudnn_install {

struct SharedLibrary {
  const char* soname;   // what dlopen asks for: "libzip.so.4"
  const char* package;  // the Debian package that ships it, "" when the build could not tell
  const char* purpose;  // what it is needed for: "read zip archives"
};

// The handle of the loaded library (never unloaded: the process is short-lived).
Result<void*> open_shared_library(const SharedLibrary& library);
// A function of a library opened above.
Result<void*> find_function(void* handle, const SharedLibrary& library, const char* name);

}  // namespace cudnn_install
