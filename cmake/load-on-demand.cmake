# libzip, libarchive and libcrypto are opened with dlopen when an archive is first read or hashed
# (lib/src/lazy_libs.hpp), so that commands which read no archive start in 2 ms instead of 6.
# For each library this records the soname dlopen asks for and, where dpkg knows the file, the
# Debian package that ships it: the DEB's Depends (dpkg-shlibdeps cannot see a dlopen) and the
# advice printed when the library is missing.
# Off: the libraries are linked as usual (Windows, and vcpkg, whose libraries are static).
if(WIN32 OR DEFINED VCPKG_TOOLCHAIN)
  set(load_on_demand_default OFF)
else()
  set(load_on_demand_default ON)
endif()
option(CUDNN_INSTALL_LOAD_ON_DEMAND "dlopen libzip, libarchive and libcrypto when first needed" ${load_on_demand_default})

# cudnn_install_shared_library(PREFIX LIBRARY_FILE) sets PREFIX_SONAME and PREFIX_PACKAGE.
function(cudnn_install_shared_library prefix library)
  file(REAL_PATH "${library}" real)
  execute_process(COMMAND "${CMAKE_OBJDUMP}" -p "${real}" OUTPUT_VARIABLE headers ERROR_QUIET)
  string(REGEX MATCH "SONAME +([^\n]+)" _ "${headers}")
  set(soname "${CMAKE_MATCH_1}")
  if(NOT soname)
    message(FATAL_ERROR "${library} has no soname: configure with -DCUDNN_INSTALL_LOAD_ON_DEMAND=OFF to link it")
  endif()
  get_filename_component(dir "${real}" DIRECTORY)
  execute_process(COMMAND dpkg-query -S "${dir}/${soname}" OUTPUT_VARIABLE owner ERROR_QUIET RESULT_VARIABLE rc)
  set(package "")
  if(rc EQUAL 0)
    string(REGEX MATCH "^[^:,]+" package "${owner}")  # "libzip4:amd64: /usr/lib/..." -> libzip4
  endif()
  set(${prefix}_SONAME "${soname}" PARENT_SCOPE)
  set(${prefix}_PACKAGE "${package}" PARENT_SCOPE)
  message(STATUS "Loaded on demand: ${soname} (package ${package})")
endfunction()

if(CUDNN_INSTALL_LOAD_ON_DEMAND)
  list(GET LIBZIP_LINK_LIBRARIES 0 libzip_file)  # pkg-config's full path of -lzip
  cudnn_install_shared_library(CUDNN_INSTALL_LIBZIP "${libzip_file}")
  cudnn_install_shared_library(CUDNN_INSTALL_LIBCRYPTO "${OPENSSL_CRYPTO_LIBRARY}")
  set(CUDNN_INSTALL_ON_DEMAND_PACKAGES ${CUDNN_INSTALL_LIBZIP_PACKAGE} ${CUDNN_INSTALL_LIBCRYPTO_PACKAGE})
  if(CUDNN_INSTALL_WITH_TAR)
    list(GET LibArchive_LIBRARIES 0 libarchive_file)
    cudnn_install_shared_library(CUDNN_INSTALL_LIBARCHIVE "${libarchive_file}")
    list(APPEND CUDNN_INSTALL_ON_DEMAND_PACKAGES ${CUDNN_INSTALL_LIBARCHIVE_PACKAGE})
  endif()
endif()
