// The tables of lazy_libs.hpp pointing at the linked libraries: Windows builds link libzip
// statically, and vcpkg's libraries are static too, so there is nothing to load.
#include "lazy_libs.hpp"

namespace cudnn_install {

#define CUDNN_INSTALL_POINT_AT(name) table.name = &::name;

Result<const LibZip*> libzip() {
  static const LibZip linked = [] {
    LibZip table;
    CUDNN_INSTALL_LIBZIP_FUNCTIONS(CUDNN_INSTALL_POINT_AT)
    return table;
  }();
  return &linked;
}

#if CUDNN_INSTALL_WITH_TAR
Result<const LibArchive*> libarchive() {
  static const LibArchive linked = [] {
    LibArchive table;
    CUDNN_INSTALL_LIBARCHIVE_FUNCTIONS(CUDNN_INSTALL_POINT_AT)
    return table;
  }();
  return &linked;
}
#endif

#ifndef _WIN32
Result<const LibCrypto*> libcrypto() {
  static const LibCrypto linked = [] {
    LibCrypto table;
    CUDNN_INSTALL_LIBCRYPTO_FUNCTIONS(CUDNN_INSTALL_POINT_AT)
    return table;
  }();
  return &linked;
}
#endif

}  // namespace cudnn_install
