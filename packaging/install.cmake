# Installation (cmake --install), the CMake package (find_package(cudnn_install)) and CPack.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS cudnn-install RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS cudnn_install_core EXPORT cudnn_install_targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set_target_properties(cudnn_install_core PROPERTIES EXPORT_NAME core)
if(CMAKE_STRIP)
  # A stripped install (cmake --install --strip, and CPack) strips the executable only; the static
  # library would keep its debug information (169 MB of a RelWithDebInfo build). Its symbols stay.
  install(CODE "if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug
      \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/$<TARGET_FILE_NAME:cudnn_install_core>\")
  endif()")
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/lib/include/cudnn_install DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cudnn_install_targets NAMESPACE cudnn_install::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cudnn_install)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cudnn_installConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/cudnn_installConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cudnn_install)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cudnn_installConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cudnn_installConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/cudnn_installConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cudnn_install)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/cudnn-install.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/completions/cudnn-install.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME cudnn-install)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/completions/cudnn-install.ps1 DESTINATION ${CMAKE_INSTALL_DATADIR}/cudnn-install)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_PACKAGE_NAME cudnn-install)
set(CPACK_PACKAGE_VENDOR "cudnn-install developers")
set(CPACK_PACKAGE_CONTACT "cudnn-install developers <dev@cudnn-install.dev>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Installs NVIDIA cuDNN archives into CUDA toolkits as one reversible transaction")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)  # no debug information in what users install (the DEB was 72 MB with it)
if(WIN32)
  set(CPACK_GENERATOR ZIP NSIS)
  set(CPACK_NSIS_DISPLAY_NAME "cudnn-install")
  set(CPACK_NSIS_MODIFY_PATH ON)  # the installer adds its own bin\ to PATH on request
else()
  set(CPACK_GENERATOR DEB TGZ)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION devel)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from what the binary links: libzip4, libarchive13, libssl3, ...
endif()
include(CPack)
