#include "cudnn_install/windows_runtime.hpp"

namespace cudnn_install {
namespace {

enum class ZlibNeed { No, Yes, Unclear };

ZlibNeed zlibwapi_need(int major, int minor) {
  if (major == 8 && minor >= 3) return ZlibNeed::Yes;
  if (major == 9 && minor < 2) return ZlibNeed::Unclear;
  return ZlibNeed::No;
}

std::string zlibwapi_fix(const std::filesystem::path& bin_dir) {
  return "download zlib123dllx64.zip (http://www.winimage.com/zLibDll/zlib123dllx64.zip, the link in NVIDIA's cuDNN 8 "
         "installation guide), take zlibwapi.dll out of its dll_x64 folder and copy it into " +
         bin_dir.string();
}

}  // namespace

std::vector<RuntimeNeed> windows_runtime_needs(int major, int minor, const std::filesystem::path& bin_dir,
                                               const WindowsRuntimeEvidence& w) {
  std::vector<RuntimeNeed> out;
  std::string version = std::to_string(major) + "." + std::to_string(minor);
  ZlibNeed zlib = zlibwapi_need(major, minor);
  if (zlib == ZlibNeed::Yes && !w.zlibwapi_found)
    out.push_back({"zlibwapi",
                   true,
                   "zlibwapi.dll is missing: cuDNN " + version + " (8.3 to 8.9) needs it on Windows",
                   {"not in " + bin_dir.string() + " nor on PATH"},
                   zlibwapi_fix(bin_dir)});
  if (zlib == ZlibNeed::Unclear && !w.zlibwapi_found)
    out.push_back({"zlibwapi",
                   false,
                   "zlibwapi.dll is not found; cuDNN " + version + " may not need it",
                   {"NVIDIA dropped the zlibwapi.dll requirement in cuDNN 9.2; for 9.0 and 9.1 its documentation is "
                    "not explicit"},
                   "if loading fails with a zlibwapi.dll error: " + zlibwapi_fix(bin_dir)});
  if (!w.missing_runtime.empty())
    out.push_back({"vc-runtime", true, "the Visual C++ runtime that cuDNN needs is missing", w.missing_runtime,
                   "install the Microsoft Visual C++ Redistributable for Visual Studio 2015-2022 (x64), "
                   "https://aka.ms/vs/17/release/vc_redist.x64.exe; it puts msvcp140.dll and vcruntime140.dll into "
                   "System32"});
  return out;
}

}  // namespace cudnn_install
