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
    if (found) slot = reinterpret_cast<Function>(*found);
    else error_ = found.error();
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

template <class Table>
Result<const Table*> address_of(const Result<Table>& loaded) {
  if (!loaded) return std::unexpected(loaded.error());
  return &*loaded;
}

#define CUDNN_INSTALL_BIND(name) bind(#name, table.name);

}  // namespace

Result<const LibZip*> libzip() {
  static const SharedLibrary library{CUDNN_INSTALL_LIBZIP_SONAME, CUDNN_INSTALL_LIBZIP_PACKAGE, "read zip archives"};
  static const Result<LibZip> loaded = load<LibZip>(library, [](Binder& bind, LibZip& table) {
    CUDNN_INSTALL_LIBZIP_FUNCTIONS(CUDNN_INSTALL_BIND)
  });
  return address_of(loaded);
}

#if CUDNN_INSTALL_WITH_TAR
Result<const LibArchive*> libarchive() {
  static const SharedLibrary library{CUDNN_INSTALL_LIBARCHIVE_SONAME, CUDNN_INSTALL_LIBARCHIVE_PACKAGE,
                                     "read .tar.xz archives"};
  static const Result<LibArchive> loaded = load<LibArchive>(library, [](Binder& bind, LibArchive& table) {
    CUDNN_INSTALL_LIBARCHIVE_FUNCTIONS(CUDNN_INSTALL_BIND)
  });
  return address_of(loaded);
}
#endif

Result<const LibCrypto*> libcrypto() {
  static const SharedLibrary library{CUDNN_INSTALL_LIBCRYPTO_SONAME, CUDNN_INSTALL_LIBCRYPTO_PACKAGE,
                                     "compute sha256 checksums"};
  static const Result<LibCrypto> loaded = load<LibCrypto>(library, [](Binder& bind, LibCrypto& table) {
    CUDNN_INSTALL_LIBCRYPTO_FUNCTIONS(CUDNN_INSTALL_BIND)
  });
  return address_of(loaded);
}

}  // namespace cudnn_install
