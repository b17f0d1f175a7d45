#include "cudnn_install/verify.hpp"

#include <fmt/format.h>

#include <regex>

#include "archive_inspect.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/utf8.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::string file_name_of(const Toolkit& tk, const std::string& sub, int major) {
  std::string stem = sub.empty() ? "cudnn" : "cudnn_" + sub;
  return tk.os == TargetOs::Windows ? fmt::format("{}64_{}.dll", stem, major) : fmt::format("lib{}.so.{}", stem, major);
}

// libcudnn.so.9 -> libcudnn.so.9.19.0: the version the real file's name states.
std::string version_from_chain(const fs::path& path) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) return {};
  static const std::regex versioned(R"(.*\.so\.([0-9]+\.[0-9]+\.[0-9]+))");
  std::smatch m;
  std::string name = real.filename().string();
  return std::regex_match(name, m, versioned) ? m[1].str() : std::string();
}

LibraryCheck check_library(const Toolkit& tk, const std::string& sub, int major) {
  LibraryCheck c;
  c.name = file_name_of(tk, sub, major);
  fs::path dir = tk.os == TargetOs::Windows ? tk.bin_dir : tk.lib_dir;
  fs::path path = tk.root / dir / c.name;
  c.path = path.string();
  std::error_code ec;
  c.present = fs::exists(path, ec);  // follows symlinks: a dangling chain is missing
  if (c.present && tk.os == TargetOs::Linux) c.version = version_from_chain(path);
#ifdef _WIN32
  if (c.present && tk.os == TargetOs::Windows) c.version = dll_file_version(path).value_or("");
#endif
  return c;
}

bool host_can_load(const Toolkit& tk) {
#ifdef _WIN32
  return tk.os == TargetOs::Windows;
#else
  return tk.os == TargetOs::Linux;
#endif
}

void check_runtime(VerifyReport& r, const Toolkit& tk, const VerifyOptions& o, ProcessRunner& runner) {
  if (o.runtime == RuntimeCheck::Skip || r.libraries.empty() || !r.libraries.front().present) return;
  if (!host_can_load(tk)) {
    r.notes.push_back(std::string("the ") + to_string(tk.os) +
                      " libraries cannot be loaded on this machine: static checks only");
    return;
  }
  ProbeResult p = probe_in_child(runner, o.probe_command, utf8_path(r.libraries.front().path));
  r.runtime = p;
  if (p.load != ProbeResult::Load::Loaded) {
    r.problems.push_back("loading " + r.libraries.front().path + " failed: " + p.detail);
    return;
  }
  if (p.version != r.header_number)
    r.problems.push_back(fmt::format("the library reports version {} but the installed cudnn_version.h says {}",
                                     p.version, r.header_number));
  if (p.gpu == ProbeResult::Gpu::Used)
    r.notes.push_back("GPU: " + p.gpu_detail + " (cudnnCreate/cudnnDestroy succeeded)");
  else if (p.gpu == ProbeResult::Gpu::Failed)
    r.problems.push_back("cuDNN could not use the GPU: " + p.gpu_detail);
  else
    r.notes.push_back("no GPU: version check only (" + p.gpu_detail + ")");
}

// zlibwapi.dll and the VC++ runtime, by the rules doctor uses (windows_runtime.hpp).
void check_windows_runtime(VerifyReport& r, const Toolkit& tk, const CudnnVersion& v, const VerifyOptions& o) {
  if (tk.os != TargetOs::Windows || !o.windows_runtime) return;
  for (const auto& need : windows_runtime_needs(v.major, v.minor, tk.root / tk.bin_dir, *o.windows_runtime))
    (need.required ? r.problems : r.notes).push_back(need.summary + "; fix: " + need.fix);
}

}  // namespace

std::optional<CudnnVersion> installed_cudnn_version(const Toolkit& tk) {
  for (const char* name : {"cudnn_version.h", "cudnn.h"})
    if (auto text = util::read_text_file(tk.root / tk.include_dir / name))
      if (auto v = parse_version_header(*text, name)) return *v;
  return std::nullopt;
}

bool versions_agree(const std::string& library_version, const std::string& header_version) {
  return library_version == header_version || library_version.starts_with(header_version + ".");
}

std::vector<std::string> cudnn_sublibraries(int major) {
  if (major >= 9) return {"adv", "cnn", "engines_precompiled", "engines_runtime_compiled", "graph", "heuristic", "ops"};
  if (major == 8) return {"ops_infer", "ops_train", "cnn_infer", "cnn_train", "adv_infer", "adv_train"};
  return {};
}

Result<VerifyReport> verify_install(const Toolkit& tk, const VerifyOptions& o, ProcessRunner& runner) {
  VerifyReport r;
  r.toolkit_root = tk.root.string();
  r.expected_version = o.expected_version;
  auto header = installed_cudnn_version(tk);
  if (!header)
    return fail(ErrorCode::VerifyFailed, "no cuDNN is installed in " + tk.root.string() + ": " +
                                             (tk.root / tk.include_dir / "cudnn_version.h").string() + " is missing");
  r.header_version = header->to_string();
  r.header_number = header->number();
  const std::string& want = o.expected_version;  // "9.19.0.56" matches a header's "9.19.0"
  if (!want.empty() && want != r.header_version && !want.starts_with(r.header_version + "."))
    r.problems.push_back("the installed cudnn_version.h says " + r.header_version + ", expected " + o.expected_version);
  r.libraries.push_back(check_library(tk, "", header->major));
  for (const auto& sub : cudnn_sublibraries(header->major))
    r.libraries.push_back(check_library(tk, sub, header->major));
  for (const auto& lib : r.libraries) {
    if (!lib.present)
      r.problems.push_back(fmt::format("{} is missing from {}: cuDNN {} needs it (\"Could not load library\" errors)",
                                       lib.name, utf8_path(lib.path).parent_path().string(), header->major));
    else if (!lib.version.empty() && !versions_agree(lib.version, r.header_version))
      r.problems.push_back(fmt::format("{} is version {} but the header says {}: mixed cuDNN versions", lib.name,
                                       lib.version, r.header_version));
  }
  check_windows_runtime(r, tk, *header, o);
  check_runtime(r, tk, o, runner);
  return r;
}

}  // namespace cudnn_install
