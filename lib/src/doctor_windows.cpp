// doctor's Windows checks, pure over WindowsEvidence: zlibwapi.dll for cuDNN 8.3-8.9, the registry
// PATH (the setx accident, the length limit, the toolkit missing, REG_SZ holding %VARS%), Python's
// DLL search that ignores PATH, and the Visual C++ runtime.
#include <fmt/format.h>

#include <cstdio>

#include "base/util.hpp"
#include "cudnn_install/doctor.hpp"
#include "cudnn_install/windows_runtime.hpp"

namespace cudnn_install {
namespace {

struct MajorMinor {
  int major = 0, minor = 0;
  std::string text;
};

// The installed cuDNN, from verify's reading of cudnn_version.h ("8.9.5").
std::optional<MajorMinor> installed_version(const DoctorInputs& in) {
  std::string_view text = in.verify.header_version;
  auto major = util::leading_number<int>(text);
  if (!major || major->second >= text.size() || text[major->second] != '.') return std::nullopt;
  auto minor = util::leading_number<int>(text.substr(major->second + 1));
  if (!minor) return std::nullopt;
  return MajorMinor{major->first, minor->first, in.verify.header_version};
}

// zlibwapi.dll and the VC++ runtime: the rules the plan and verify use too (windows_runtime.hpp).
void check_runtime_needs(const DoctorInputs& in, const WindowsEvidence& w, std::vector<Finding>& out) {
  auto v = installed_version(in);
  if (!v) return;
  WindowsRuntimeEvidence evidence{w.zlibwapi_found, w.missing_runtime};
  for (auto& need : windows_runtime_needs(v->major, v->minor, in.toolkit.root / in.toolkit.bin_dir, evidence))
    out.push_back({need.check, need.required ? Severity::Error : Severity::Info, std::move(need.summary),
                   std::move(need.evidence), std::move(need.fix)});
}

void check_path_value(const std::optional<RegValue>& value, const char* scope, std::vector<Finding>& out) {
  if (!value) return;
  std::u16string text = value_text(*value);
  std::string where = std::string(scope) + " PATH";
  if (text.size() == 1024)
    out.push_back({"path",
                   Severity::Warning,
                   "the " + where + " is exactly 1024 characters: it looks cut off by setx",
                   {fmt::format("{} characters", text.size())},
                   "restore the entries it lost (System Properties > Environment Variables); never use setx for PATH"});
  if (text.size() > kMaxPathChars)
    out.push_back({"path",
                   Severity::Error,
                   "the " + where + " is longer than Windows' 32767-character limit",
                   {fmt::format("{} characters", text.size())},
                   "remove entries that are no longer needed"});
  if (value->type == kRegSz && text.find(u'%') != std::u16string::npos)
    out.push_back({"path",
                   Severity::Warning,
                   "the " + where + " is REG_SZ but holds %VARIABLES%, which are then not expanded",
                   {"type REG_SZ"},
                   "set its type back to REG_EXPAND_SZ (regedit), keeping the text as it is"});
}

void check_path(const DoctorInputs& in, const WindowsEvidence& w, std::vector<Finding>& out) {
  check_path_value(w.user_path, "user", out);
  check_path_value(w.system_path, "system", out);
  if (w.system_path) {
    std::u16string system = value_text(*w.system_path);
    bool has_system32 = false;
    for (const auto& e : split_path_value(system)) {
      auto c = comparable_entry(e);
      has_system32 |= c == u"%systemroot%\\system32" || c.ends_with(u":\\windows\\system32");
    }
    if (!has_system32)
      out.push_back({"path",
                     Severity::Error,
                     "the system PATH lacks %SystemRoot%\\system32: system entries were lost (the setx accident)",
                     {fmt::format("{} characters", system.size())},
                     "add %SystemRoot%\\system32;%SystemRoot%;%SystemRoot%\\System32\\Wbem back to the system PATH"});
  }
  std::string bin = (in.toolkit.root / in.toolkit.bin_dir).string();
  if (!in.loader_searches_lib)
    out.push_back({"path",
                   Severity::Warning,
                   bin + " is not on PATH: programs do not find cudnn64_N.dll",
                   {"not in the PATH of this process"},
                   "cudnn-install ARCHIVE adds it (user PATH; --system for all users)"});
}

void check_python(const DoctorInputs& in, const WindowsEvidence& w, std::vector<Finding>& out) {
  if (w.pythons.empty()) return;
  std::string bin = (in.toolkit.root / in.toolkit.bin_dir).string();
  out.push_back({"python-dll-search", Severity::Info,
                 "Python 3.8 and newer do not search PATH for the DLLs of extension modules", w.pythons,
                 "in Python, before importing the module that uses cuDNN: os.add_dll_directory(r\"" + bin + "\")"});
}

}  // namespace

std::vector<Finding> windows_findings(const DoctorInputs& in) {
  std::vector<Finding> out;
  if (!in.windows) return out;
  check_runtime_needs(in, *in.windows, out);
  check_path(in, *in.windows, out);
  check_python(in, *in.windows, out);
  return out;
}

}  // namespace cudnn_install
