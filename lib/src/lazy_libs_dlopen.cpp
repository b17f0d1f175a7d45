// The tables of lazy_libs.hpp, filled with dlopen and dlsym when first asked for. The sonames and
// packages come from the build (cmake/load-on-demand.cmake).
#include <optional>

#include "lazy_libs.hpp"
#include "shared_library.hpp"

namespace cudnn_install {
namespace {

// Fills one slot of a table; remembers the first function the library lacks.
class Binder {
 public:
  Binder(void* handle, const SharedLibrary& library) : handle_(handle), library_(library) {}

  template <class Function>
  void operator()(const char* name, Function& slot) {
    if (error_) return;
    auto found = find_function(handle_, library_, name);
    if (found)
      slot = reinterpret_cast<Function>(*found);
    else
      error_ = found.error();
  }
  const std::optional<Error>& error() const { return error_; }

 private:
  void* handle_;
  const SharedLibrary& library_;
  std::optional<Error> error_;
};

template <class Table, class BindAll>
Result<Table> load(const SharedLibrary& library, BindAll bind_all) {
  auto handle = open_shared_library(library);
  if (!handle) return std::unexpected(handle.error());
  Binder bind(*handle, library);
  Table table;
  bind_all(bind, table);
  if (bind.error()) return std::unexpected(*bind.error());
  return table;
}

// Loaded on first use, once per table; later calls return the same table or the same error.
template <class Table, class BindAll>
Result<const Table*> loaded_once(const SharedLibrary& library, BindAll bind_all) {
  static const Result<Table> loaded = load<Table>(library, bind_all);
  if (!loaded) return std::unexpected(loaded.error());
  return &*loaded;
}

#define CUDNN_INSTALL_BIND(name) bind(#name, table.name);

}  // namespace

Result<const LibZip*> libzip() {
  static const SharedLibrary library{CUDNN_INSTALL_LIBZIP_SONAME, CUDNN_INSTALL_LIBZIP_PACKAGE, "read zip archives"};
  return loaded_once<LibZip>(library,
                             [](Binder& bind, LibZip& table) { CUDNN_INSTALL_LIBZIP_FUNCTIONS(CUDNN_INSTALL_BIND) });
}

#if CUDNN_INSTALL_WITH_TAR
Result<const LibArchive*> libarchive() {
  static const SharedLibrary library{CUDNN_INSTALL_LIBARCHIVE_SONAME, CUDNN_INSTALL_LIBARCHIVE_PACKAGE,
                                     "read .tar.xz archives"};
  return loaded_once<LibArchive>(
      library, [](Binder& bind, LibArchive& table) { CUDNN_INSTALL_LIBARCHIVE_FUNCTIONS(CUDNN_INSTALL_BIND) });
}
#endif

Result<const LibCrypto*> libcrypto() {
  static const SharedLibrary library{CUDNN_INSTALL_LIBCRYPTO_SONAME, CUDNN_INSTALL_LIBCRYPTO_PACKAGE,
                                     "compute sha256 checksums"};
  return loaded_once<LibCrypto>(
      library, [](Binder& bind, LibCrypto& table) { CUDNN_INSTALL_LIBCRYPTO_FUNCTIONS(CUDNN_INSTALL_BIND) });
}

}  // namespace cudnn_install
