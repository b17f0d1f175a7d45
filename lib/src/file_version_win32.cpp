// FileVersion from a DLL's version resource: GetFileVersionInfoSizeW, GetFileVersionInfoW and
// VerQueryValueW("\\"), which gives the VS_FIXEDFILEINFO whose signature must be 0xFEEF04BD.
#include <windows.h>

#include <vector>

#include "cudnn_install/verify.hpp"

namespace cudnn_install {

std::optional<std::string> dll_file_version(const std::filesystem::path& dll) {
  DWORD ignored = 0;
  DWORD size = GetFileVersionInfoSizeW(dll.c_str(), &ignored);
  if (size == 0) return std::nullopt;
  std::vector<char> data(size);
  if (!GetFileVersionInfoW(dll.c_str(), 0, size, data.data())) return std::nullopt;
  VS_FIXEDFILEINFO* info = nullptr;
  UINT len = 0;
  if (!VerQueryValueW(data.data(), L"\\", reinterpret_cast<void**>(&info), &len) || len < sizeof *info)
    return std::nullopt;
  if (info->dwSignature != 0xFEEF04BD) return std::nullopt;
  return std::to_string(HIWORD(info->dwFileVersionMS)) + "." + std::to_string(LOWORD(info->dwFileVersionMS)) + "." +
         std::to_string(HIWORD(info->dwFileVersionLS)) + "." + std::to_string(LOWORD(info->dwFileVersionLS));
}

}  // namespace cudnn_install
