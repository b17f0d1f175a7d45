# Header-only fmt, spdlog, CLI11 and nlohmann-json for the mingw cross build, as the same
# imported targets their CMake packages define. The directory holds only those headers
# (scripts/setup-windows.sh), so the host's /usr/include never enters a Windows build.
find_path(CUDNN_INSTALL_HEADER_ONLY_DIR NAMES fmt/format.h spdlog/spdlog.h REQUIRED)
add_library(fmt::fmt INTERFACE IMPORTED)
target_include_directories(fmt::fmt INTERFACE ${CUDNN_INSTALL_HEADER_ONLY_DIR})
target_compile_definitions(fmt::fmt INTERFACE FMT_HEADER_ONLY)
add_library(spdlog::spdlog INTERFACE IMPORTED)
target_compile_definitions(spdlog::spdlog INTERFACE SPDLOG_FMT_EXTERNAL)
target_link_libraries(spdlog::spdlog INTERFACE fmt::fmt)
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
target_include_directories(nlohmann_json::nlohmann_json INTERFACE ${CUDNN_INSTALL_HEADER_ONLY_DIR})
add_library(CLI11::CLI11 INTERFACE IMPORTED)
target_include_directories(CLI11::CLI11 INTERFACE ${CUDNN_INSTALL_HEADER_ONLY_DIR})
