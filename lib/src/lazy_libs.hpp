// libzip, libarchive and OpenSSL's libcrypto, reached through tables of function pointers that are
// filled when an archive is first opened or hashed, not when the process starts.
//
// Why: on Linux those three bring libxml2, ICU, nettle, bzip2 and more; loading and relocating them
// was 4 of the 6 ms that every command took to start, and most commands never read an archive (an
// identical reinstall answers from .cudnn-install/archives.json, --rollback and status only rename
// and read small files). Two implementations, chosen in CMake (CUDNN_INSTALL_LOAD_ON_DEMAND):
//   lazy_libs_dlopen.cpp  opens each library by the soname recorded at build time (Linux);
//   lazy_libs_linked.cpp  points the tables at the linked functions (Windows, vcpkg's static libs).
// Call sites read `api.zip_open(...)`: the member names are the C names, so the code still greps.
#pragma once
#include <zip.h>
#if CUDNN_INSTALL_WITH_TAR
#include <archive.h>
#include <archive_entry.h>
#endif
#ifndef _WIN32
#include <openssl/evp.h>
#endif

#include "cudnn_install/error.hpp"

namespace cudnn_install {

#define CUDNN_INSTALL_POINTER_TO(name) decltype(&::name) name = nullptr;

#define CUDNN_INSTALL_LIBZIP_FUNCTIONS(X)                                                                      \
  X(zip_open)                                                                                                  \
  X(zip_open_from_source) X(zip_source_buffer_create) X(zip_source_free) X(zip_discard) X(zip_get_num_entries) \
      X(zip_stat_init) X(zip_stat_index) X(zip_file_get_external_attributes) X(zip_fopen_index) X(zip_fread)   \
          X(zip_fclose) X(zip_strerror) X(zip_file_strerror) X(zip_error_init) X(zip_error_init_with_code)     \
              X(zip_error_strerror) X(zip_error_fini)

struct LibZip {
  CUDNN_INSTALL_LIBZIP_FUNCTIONS(CUDNN_INSTALL_POINTER_TO)
};
// Loaded once; later calls return the same table (or the same error).
Result<const LibZip*> libzip();

#if CUDNN_INSTALL_WITH_TAR
#define CUDNN_INSTALL_LIBARCHIVE_FUNCTIONS(X)                                                                       \
  X(archive_read_new)                                                                                               \
  X(archive_read_free) X(archive_read_support_filter_xz) X(archive_read_support_filter_gzip)                        \
      X(archive_read_support_format_tar) X(archive_read_open) X(archive_read_open_memory)                           \
          X(archive_read_open_filename) X(archive_read_next_header) X(archive_read_data) X(archive_error_string)    \
              X(archive_set_error) X(archive_filter_bytes) X(archive_entry_pathname) X(archive_entry_filetype)      \
                  X(archive_entry_size_is_set) X(archive_entry_size) X(archive_entry_perm) X(archive_entry_symlink) \
                      X(archive_entry_hardlink)

struct LibArchive {
  CUDNN_INSTALL_LIBARCHIVE_FUNCTIONS(CUDNN_INSTALL_POINTER_TO)
};
Result<const LibArchive*> libarchive();
#endif

#ifndef _WIN32  // Windows hashes with BCrypt (sha256_win32.cpp)
#define CUDNN_INSTALL_LIBCRYPTO_FUNCTIONS(X) \
  X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_sha256) X(EVP_DigestInit_ex) X(EVP_DigestUpdate) X(EVP_DigestFinal_ex)

struct LibCrypto {
  CUDNN_INSTALL_LIBCRYPTO_FUNCTIONS(CUDNN_INSTALL_POINTER_TO)
};
Result<const LibCrypto*> libcrypto();
#endif

}  // namespace cudnn_install
