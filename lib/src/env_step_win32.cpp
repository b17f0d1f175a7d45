// The environment step of an install on Windows (env_step.hpp): the toolkit's DLL directory on PATH, in the
// registry (HKCU by default, HKLM with --system), planned here and changed by the transaction.
// Also doctor's view of PATH: other cudnn64_N.dll found first.
#include <windows.h>

#include <regex>

#include "base/win32_util.hpp"
#include "cudnn_install/env_step.hpp"
#include "cudnn_install/loader.hpp"

namespace cudnn_install {
namespace {

std::u16string to_u16(const std::wstring& w) { return std::u16string(w.begin(), w.end()); }
std::wstring to_w(std::u16string_view s) { return std::wstring(s.begin(), s.end()); }
std::string utf8(std::u16string_view s) { return win32::narrow(to_w(s)); }

std::u16string expand(std::u16string_view entry) {
  std::wstring in = to_w(entry), out(32768, L'\0');
  DWORD n = ExpandEnvironmentStringsW(in.c_str(), out.data(), static_cast<DWORD>(out.size()));
  if (n == 0 || n > out.size()) return std::u16string(entry);
  out.resize(n - 1);
  return to_u16(out);
}

// cudnn64_N.dll files in a directory (the main library of each major).
std::vector<std::filesystem::path> cudnn_dlls_in(const std::filesystem::path& dir) {
  static const std::regex main_dll(R"(cudnn64_[0-9]+\.dll)", std::regex::icase);
  std::vector<std::filesystem::path> found;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), main_dll)) found.push_back(it->path());
  return found;
}

PathQuery query_for(const std::filesystem::path& dll_dir) {
  std::u16string ours = comparable_entry(to_u16(dll_dir.wstring()));
  return {to_u16(dll_dir.wstring()), expand, [ours](std::u16string_view dir) {
            return dir != ours && !cudnn_dlls_in(std::filesystem::path(to_w(dir))).empty();
          }};
}

const char* scope_word(EnvScope scope) { return scope == EnvScope::System ? "system" : "user"; }

// A cuDNN in the system PATH is found before every entry of the user PATH.
void warn_system_shadows(EnvStore& store, const PathQuery& q, EnvStep& step) {
  auto system = store.read(EnvScope::System, "Path");
  if (!system || !*system) return;
  auto r = insert_path_entry(value_text(**system), q);
  for (const auto& s : r ? r->shadows : std::vector<std::u16string>())
    step.lines.push_back("warning  " + utf8(s) +
                         " in the system PATH holds another cudnn64_N.dll and comes before "
                         "every user PATH entry: run with --system (as administrator) or remove it");
}

}  // namespace

Result<EnvStep> plan_env_step(const Toolkit& tk, int, const EnvStepOptions& o) {
  EnvStep step;
  if (tk.os != TargetOs::Windows) return step;
  std::filesystem::path dll_dir = (tk.root / tk.bin_dir).make_preferred();  // "bin\\x64", as PATH spells it
  if (o.change == EnvChange::Leave) {
    step.lines.push_back("PATH     unchanged (--no-path); programs find cuDNN only if " + dll_dir.string() +
                         " is on PATH");
    return step;
  }
  EnvScope scope = o.scope;
  auto store = make_registry_env_store();
  auto before = store->read(scope, "Path");
  if (!before) return std::unexpected(before.error());
  PathQuery q = query_for(dll_dir);
  std::u16string old_text = *before ? value_text(**before) : std::u16string();
  auto ins = insert_path_entry(old_text, q);
  if (!ins) return std::unexpected(ins.error());
  if (scope == EnvScope::User) warn_system_shadows(*store, q, step);
  for (const auto& s : ins->shadows)
    step.lines.push_back("note     " + utf8(s) +
                         " holds another cudnn64_N.dll: the toolkit's directory goes before it");
  if (ins->what == PathInsertion::What::AlreadyFirst) {
    step.lines.push_back(std::string("PATH     ") + dll_dir.string() + " is already on the " + scope_word(scope) +
                         " PATH, before any other cuDNN: unchanged");
    return step;
  }
  std::uint32_t type = *before ? (*before)->type : kRegExpandSz;  // the type is never changed
  step.edit = EnvEdit{scope, "Path", *before, make_value(type, ins->value)};
  step.entry = dll_dir.string();
  step.lines.push_back(std::string("PATH     ") + (ins->what == PathInsertion::What::Added ? "add " : "move ") +
                       dll_dir.string() + " to entry " + std::to_string(ins->position + 1) + " of the " +
                       scope_word(scope) + " PATH (" + to_string(scope) + ", " +
                       (type == kRegExpandSz ? "REG_EXPAND_SZ" : "REG_SZ") + ", kept)");
  if (o.show == ShowPathValues::BeforeAndAfter) {
    step.lines.push_back("         before: " + utf8(old_text));
    step.lines.push_back("         after:  " + utf8(ins->value));
  }
  return step;
}

Result<void> refresh_after_env_change(const EnvChanged&, ProcessRunner&) { return {}; }

std::unique_ptr<EnvStore> open_env_store() { return make_registry_env_store(); }

namespace {

// The Visual C++ runtime DLLs cuDNN links against, where Windows keeps them.
std::vector<std::string> missing_runtime() {
  wchar_t system[MAX_PATH] = {};
  GetSystemDirectoryW(system, MAX_PATH);
  std::vector<std::string> missing;
  std::error_code ec;
  for (const wchar_t* dll : {L"msvcp140.dll", L"vcruntime140.dll"})
    if (!std::filesystem::exists(std::filesystem::path(system) / dll, ec))
      missing.push_back((std::filesystem::path(system) / dll).string());
  return missing;
}

}  // namespace

WindowsRuntimeEvidence windows_runtime_evidence(const Toolkit& tk) {
  WindowsRuntimeEvidence w;
  std::error_code ec;
  w.zlibwapi_found = std::filesystem::exists((tk.root / tk.bin_dir) / "zlibwapi.dll", ec);
  for (const auto& entry : split_path_value(expand(u"%PATH%")))
    if (!entry.empty())
      w.zlibwapi_found |= std::filesystem::exists(std::filesystem::path(to_w(entry)) / "zlibwapi.dll", ec);
  w.missing_runtime = missing_runtime();
  return w;
}

// Walks the PATH of this process: shadowing cudnn64_N.dll before the toolkit, zlibwapi.dll, Python.
void add_env_evidence(DoctorInputs& in, const Toolkit& tk, int) {
  std::filesystem::path ours = (tk.root / tk.bin_dir).make_preferred();
  WindowsEvidence w;
  auto store = make_registry_env_store();
  if (auto v = store->read(EnvScope::User, "Path")) w.user_path = *v;
  if (auto v = store->read(EnvScope::System, "Path")) w.system_path = *v;
  auto runtime = windows_runtime_evidence(tk);
  w.zlibwapi_found = runtime.zlibwapi_found;
  w.missing_runtime = runtime.missing_runtime;
  std::error_code ec;
  bool found_ours = false;
  for (const auto& entry : split_path_value(expand(u"%PATH%"))) {
    if (entry.empty()) continue;
    std::filesystem::path dir(to_w(entry));
    if (std::filesystem::exists(dir / "python.exe", ec)) w.pythons.push_back((dir / "python.exe").string());
    if (comparable_entry(entry) == comparable_entry(to_u16(ours.wstring()))) found_ours = true;
    if (!found_ours)
      for (const auto& dll : cudnn_dlls_in(dir))
        in.shadows.push_back({dll.string(), dll_file_version(dll).value_or(""), "PATH"});
  }
  in.loader_searches_lib = found_ours;
  in.windows = std::move(w);
}

std::string env_state(const Toolkit& tk) {
  std::filesystem::path ours = (tk.root / tk.bin_dir).make_preferred();
  PathQuery q = query_for(ours);
  auto store = make_registry_env_store();
  std::string out;
  for (EnvScope scope : {EnvScope::System, EnvScope::User}) {
    auto value = store->read(scope, "Path");
    if (!value || !*value) continue;
    const RegValue& path = **value;
    auto entries = split_path_value(value_text(path));
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (!entries[i].empty() && comparable_entry(expand(entries[i])) == comparable_entry(q.dir))
        out += std::string(out.empty() ? "" : "; ") + "entry " + std::to_string(i + 1) + " of the " +
               scope_word(scope) + " PATH (" + (path.type == kRegExpandSz ? "REG_EXPAND_SZ" : "REG_SZ") + ")";
  }
  return ours.string() + (out.empty() ? " is not on PATH (cudnn-install ARCHIVE adds it)" : " is " + out);
}

}  // namespace cudnn_install
