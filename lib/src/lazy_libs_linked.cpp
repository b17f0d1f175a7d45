// The tables of lazy_libs.hpp pointing at the linked libraries: Windows builds link libzip
// statically, and vcpkg's libraries are static too, so there is nothing to load.
#include "lazy_libs.hpp"

namespace cudnn_install {
namespace {

// Each table filled once, on first use.
template <class Table, class PointAll>
Result<const Table*> linked(PointAll point_all) {
  static const Table table = [&] {
    Table t;
    point_all(t);
    return t;
  }();
  return &table;
}

#define CUDNN_INSTALL_POINT_AT(name) table.name = &::name;

}  // namespace

Result<const LibZip*> libzip() {
  return linked<LibZip>([](LibZip& table) { CUDNN_INSTALL_LIBZIP_FUNCTIONS(CUDNN_INSTALL_POINT_AT) });
}

#if CUDNN_INSTALL_WITH_TAR
Result<const LibArchive*> libarchive() {
  return linked<LibArchive>([](LibArchive& table) { CUDNN_INSTALL_LIBARCHIVE_FUNCTIONS(CUDNN_INSTALL_POINT_AT) });
}
#endif

#ifndef _WIN32
Result<const LibCrypto*> libcrypto() {
  return linked<LibCrypto>([](LibCrypto& table) { CUDNN_INSTALL_LIBCRYPTO_FUNCTIONS(CUDNN_INSTALL_POINT_AT) });
}
#endif

}  // namespace cudnn_install
