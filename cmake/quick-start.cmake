# CUDNN_INSTALL_QUICK_START: every command is a new process, and an identical reinstall or a
# rollback takes only a few ms beyond its start. With Debian's shared libstdc++, libfmt and
# libspdlog the loader resolves 3,147 symbols at every start (LD_DEBUG=statistics): `--version`
# took 2.4-2.6 ms, against 1.4 ms without them. Here fmt and spdlog are compiled in (the
# header-only modes both packages ship) and libstdc++ and libgcc are linked statically, so a run
# maps only libc, libz and liblzma; libzip, libarchive and libcrypto are opened when first needed
# (cmake/load-on-demand.cmake). The price is compile time (a header-only fmt doubles the compile
# time of the files that use it), so only the release preset turns it on.

if(MSVC)
  message(FATAL_ERROR "CUDNN_INSTALL_QUICK_START is for GCC and Clang builds: MSVC links its runtime its own way (/MT).")
endif()

# spdlog's header-only target links the shared fmt: point it at fmt's header-only target instead.
set_target_properties(spdlog::spdlog_header_only PROPERTIES
  INTERFACE_LINK_LIBRARIES "Threads::Threads;fmt::fmt-header-only")
set(CUDNN_INSTALL_FMT fmt::fmt-header-only)
set(CUDNN_INSTALL_SPDLOG spdlog::spdlog_header_only)
# The CLI alone links the C++ runtime in (app/CMakeLists.txt): a test that also loads a shared C++
# library (libgtest) must not hold a second copy of the runtime.
set(CUDNN_INSTALL_CLI_LINK_OPTIONS -static-libstdc++ -static-libgcc)
