#include "cudnn_install/toolkit.hpp"

#include <algorithm>
#include <regex>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/utf8.hpp"
#include "toolkit_identity.hpp"
#include "toolkit_version.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

struct VersionFound {
  CudaVersion version;
  std::string source;
};

std::optional<VersionFound> read_version(const fs::path& root, const ToolkitSearch& search) {
  if (auto text = util::read_text_file(root / "version.json"))
    if (auto v = parse_cuda_version_json(*text)) return VersionFound{*v, "version.json"};
  if (auto text = util::read_text_file(root / "version.txt"))
    if (auto v = parse_cuda_version_txt(*text)) return VersionFound{*v, "version.txt"};
  if (auto text = util::read_text_file(root / "include" / "cuda.h"))
    if (auto v = parse_cuda_h(*text)) return VersionFound{*v, "include/cuda.h (CUDA_VERSION)"};
  for (const char* nvcc : {"bin/nvcc", "bin/nvcc.exe"}) {
    std::error_code ec;
    if (!search.run_nvcc || !fs::exists(root / nvcc, ec)) continue;
    if (auto out = search.run_nvcc(root / nvcc))
      if (auto v = parse_nvcc_version(*out)) return VersionFound{*v, "nvcc --version"};
  }
  return std::nullopt;
}

bool has_file_matching(const fs::path& dir, const std::regex& pattern) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (std::regex_match(it->path().filename().string(), pattern)) return true;
  return false;
}

// A symlinked directory (lib64 -> lib, include -> targets/x86_64-linux/include) is written
// through, never replaced: record where it really is, relative to the root.
fs::path resolve_inside(const fs::path& root, const fs::path& rel) {
  std::error_code ec;
  fs::path real_root = fs::canonical(root, ec);
  if (ec) return rel;
  fs::path real = fs::canonical(root / rel, ec);
  if (ec) return rel;
  fs::path inside = real.lexically_relative(real_root);
  if (inside.empty() || *inside.begin() == "..") return rel;
  return inside;
}

// Where the runtime lives is where cuDNN belongs: lib64 / lib (toolkits from NVIDIA's installers),
// lib/<triplet> (distribution packages such as nvidia-cuda-toolkit in /usr), targets/<arch>/lib.
fs::path linux_lib_dir(const fs::path& root) {
  static const std::regex cudart(R"(libcudart\.so.*)");
  const char* candidates[] = {"lib64",
                              "lib",
                              "lib/x86_64-linux-gnu",
                              "lib/aarch64-linux-gnu",
                              "targets/x86_64-linux/lib",
                              "targets/sbsa-linux/lib",
                              "targets/aarch64-linux/lib"};
  for (const char* c : candidates)
    if (has_file_matching(root / c, cudart)) return c;
  std::error_code ec;
  for (const char* c : candidates)
    if (fs::is_directory(root / c, ec)) return c;
  return "lib64";
}

void fill_layout(Toolkit& tk) {
  static const std::regex cudart_dll(R"(cudart64_[0-9]+\.dll)", std::regex::icase);
  std::error_code ec;
  bool dll_in_x64 = has_file_matching(tk.root / "bin" / "x64", cudart_dll);
  bool windows =
      dll_in_x64 || has_file_matching(tk.root / "bin", cudart_dll) || fs::exists(tk.root / "bin/nvcc.exe", ec);
  tk.include_dir = resolve_inside(tk.root, "include");
  if (windows) {
    tk.os = TargetOs::Windows;
    tk.bin_dir = dll_in_x64 ? "bin/x64" : "bin";
    tk.import_lib_dir = "lib/x64";
    tk.lib_dir = "lib/x64";
    return;
  }
  tk.os = TargetOs::Linux;
  tk.lib_dir = resolve_inside(tk.root, linux_lib_dir(tk.root));
  tk.import_lib_dir = tk.lib_dir;
  for (fs::directory_iterator it(tk.root / "targets", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().ends_with("-linux")) tk.targets.push_back(it->path().filename().string());
  std::sort(tk.targets.begin(), tk.targets.end());
}

std::optional<std::string> env_value(const ToolkitSearch& search, const std::string& name) {
  for (const auto& [key, value] : search.environment)
    if (key == name && !value.empty()) return value;
  return std::nullopt;
}

struct Candidate {
  fs::path root;
  std::string found_by;
  std::string shown;  // how it is named among a toolkit's other sources ("also ...")
};

// nvcc on PATH names the toolkit whose bin/ holds it: through a symlink (/usr/local/bin/nvcc ->
// /usr/local/cuda-13.0/bin/nvcc, as update-alternatives makes it), the one the link leads to.
std::optional<Candidate> nvcc_candidate(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {"nvcc", "nvcc.exe"}) {
    fs::path nvcc = dir / name;
    if (!fs::exists(nvcc, ec)) continue;
    fs::path bin = fs::is_symlink(nvcc, ec) ? fs::weakly_canonical(nvcc, ec).parent_path() : dir.lexically_normal();
    if (!bin.has_filename()) bin = bin.parent_path();  // "/x/bin/" -> "/x/bin"
    return Candidate{bin.parent_path(), "nvcc on PATH", "nvcc on PATH"};
  }
  return std::nullopt;
}

// In priority order: the most explicit source first, so that it names a toolkit found twice.
std::vector<Candidate> candidates(const ToolkitSearch& search) {
  std::vector<Candidate> out;
  for (const char* name : {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"})
    if (auto v = env_value(search, name)) out.push_back({utf8_path(*v), name, name});
  static const std::regex versioned(R"(CUDA_PATH_V[0-9]+_[0-9]+)");
  for (const auto& [key, value] : search.environment)
    if (std::regex_match(key, versioned) && !value.empty()) out.push_back({utf8_path(value), key, key});
  if (auto path = env_value(search, "PATH")) {
    std::stringstream ss(*path);
    for (std::string dir; std::getline(ss, dir, search.path_separator);)
      if (!dir.empty())
        if (auto c = nvcc_candidate(utf8_path(dir))) out.push_back(std::move(*c));
  }
  for (const auto& dir : search.default_dirs) out.push_back({dir, "default location", dir.string()});
  return out;
}

// A wrapper script on PATH (/usr/local/bin/nvcc running /usr/local/cuda/bin/nvcc) makes its parent
// look like a toolkit known only by `nvcc --version`. When a real tree of the same CUDA release was
// found, that is the toolkit the wrapper runs: one toolkit, not two.
bool is_wrapper_of(const Toolkit& wrapper, const Toolkit& real) {
  return &wrapper != &real && wrapper.found_by == "nvcc on PATH" && wrapper.version_source == "nvcc --version" &&
         real.version_source != "nvcc --version" && wrapper.version.major == real.version.major &&
         wrapper.version.minor == real.version.minor;
}

void merge_wrappers(std::vector<Toolkit>& found) {
  for (size_t i = 0; i < found.size();) {
    auto real = std::find_if(found.begin(), found.end(), [&](const Toolkit& r) { return is_wrapper_of(found[i], r); });
    if (real == found.end()) {
      ++i;
      continue;
    }
    real->also_found_by.push_back("nvcc on PATH (wrapper " + (found[i].root / "bin" / "nvcc").string() + ")");
    found.erase(found.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

std::string describe(const Toolkit& tk) {
  return "  " + tk.root.string() + "  (CUDA " + tk.version.to_string() + ", found by " + found_by_text(tk) + ")";
}

std::string describe_all(const std::vector<Toolkit>& toolkits) {
  std::string list;
  for (const auto& tk : toolkits) list += "\n" + describe(tk);
  return list;
}

// The variable the user set to name a toolkit, in the order CUDA's own tools read them.
constexpr const char* kToolkitVariables[] = {"CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"};

bool found_through(const Toolkit& tk, const std::string& source) {
  return tk.found_by == source ||
         std::find(tk.also_found_by.begin(), tk.also_found_by.end(), source) != tk.also_found_by.end();
}

bool is_toolkit_variable(const std::string& source) {
  return std::find(std::begin(kToolkitVariables), std::end(kToolkitVariables), source) != std::end(kToolkitVariables);
}

// The toolkit an explicitly set variable names, among those that fit, and which variable it was.
std::optional<std::pair<Toolkit, std::string>> named_by_variable(const std::vector<Toolkit>& fit,
                                                                 const ToolkitSearch& search) {
  for (const char* variable : kToolkitVariables) {
    if (!env_value(search, variable)) continue;
    for (const auto& tk : fit)
      if (found_through(tk, variable)) return std::pair{tk, std::string(variable)};
  }
  return std::nullopt;
}

// The chosen toolkit, with how it was chosen and every other toolkit found.
Toolkit take_toolkit(Toolkit tk, ChosenBy by, const std::vector<Toolkit>& all, std::string variable = {},
                     std::optional<int> cuda_major = std::nullopt) {
  ToolkitChoice choice;
  choice.by = by;
  choice.variable = std::move(variable);
  choice.cuda_major = cuda_major;
  for (const auto& other : all)
    if (other.root != tk.root) choice.others.push_back({other.root, other.version.to_string(), found_by_text(other)});
  tk.choice = std::move(choice);
  return tk;
}

Error several_toolkits(ToolkitPurpose purpose, const std::vector<Toolkit>& fit) {
  std::string what = purpose == ToolkitPurpose::Install ? "several CUDA toolkits could take this archive"
                                                        : "several CUDA toolkits are installed";
  return Error{ErrorCode::NoToolkit, what + "; choose one with --cuda-root:" + describe_all(fit), ""};
}

}  // namespace

std::optional<std::string> linux_target_of(const std::string& platform) {
  if (platform == "linux-x86_64" || platform == "linux-x64") return "x86_64-linux";
  if (platform == "linux-sbsa" || platform == "linux-aarch64sbsa") return "sbsa-linux";
  if (platform == "linux-aarch64") return "aarch64-linux";
  if (platform == "linux-ppc64le") return "ppc64le-linux";
  return std::nullopt;
}

namespace {

// cmd and the C runtime read `\"` as a quote inside the argument: `--cuda-root "C:\CUDA\v12.4\"`
// arrives as `C:\CUDA\v12.4"`, and no folder has that name.
std::string stray_quote_hint(const fs::path& root) {
  std::string text = root.string();
  if (text.empty() || text.back() != '"') return "";
  return ": it ends with a double quote, which cmd leaves there when a backslash comes just before the "
         "closing quote; leave out that last backslash";
}

}  // namespace

Result<Toolkit> probe_toolkit(const fs::path& root, std::string found_by, const ToolkitSearch& search) {
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return fail(ErrorCode::NoToolkit,
                "'" + root.string() + "' (" + found_by + ") is not a directory" + stray_quote_hint(root),
                root.string());
  auto version = read_version(root, search);
  if (!version) {
    // `--cuda-root ...\v12.4\bin` (where nvcc or the DLLs are): the toolkit is the folder above.
    fs::path dir = root.lexically_normal();
    if (!dir.has_filename()) dir = dir.parent_path();  // "...\bin\"
    fs::path parent = dir.parent_path();
    std::string hint = !parent.empty() && parent != dir && read_version(parent, search)
                           ? "; the folder above it, '" + parent.string() + "', is one: pass that"
                           : "";
    return fail(ErrorCode::NoToolkit,
                "'" + root.string() + "' (" + found_by +
                    ") does not look like a CUDA toolkit: no version.json, version.txt, include/cuda.h or bin/nvcc" +
                    hint,
                root.string());
  }
  Toolkit tk;
  tk.root = root;
  tk.version = version->version;
  tk.version_source = version->source;
  tk.found_by = std::move(found_by);
  fill_layout(tk);
  return tk;
}

namespace {

// The toolkits found, and a note for each variable the user set that names none (CUDA_PATH left
// behind by an uninstalled toolkit), with probe_toolkit's reason.
struct SearchResult {
  std::vector<Toolkit> found;
  std::vector<std::string> ignored_variables;
};

void note_ignored(const Candidate& c, const Error& why, SearchResult& out) {
  if (is_toolkit_variable(c.found_by))
    out.ignored_variables.push_back(why.message + "; " + c.found_by + " was ignored (correct it or unset it)");
}

SearchResult search_toolkits(const ToolkitSearch& search) {
  SearchResult out;
  std::vector<Toolkit>& found = out.found;
  std::vector<std::string> identities;  // of found[i]
  for (const auto& c : candidates(search)) {
    std::string identity = toolkit_dir_identity(c.root);
    if (identity.empty()) {  // nothing there: probe_toolkit says what, for a variable's note
      if (!is_toolkit_variable(c.found_by)) continue;
      if (auto probed = probe_toolkit(c.root, c.found_by, search); !probed) note_ignored(c, probed.error(), out);
      continue;
    }
    auto seen = std::find(identities.begin(), identities.end(), identity);
    if (seen != identities.end()) {  // the same directory again: a link to it, another variable
      Toolkit& tk = found[static_cast<size_t>(seen - identities.begin())];
      std::string shown = c.root == tk.root && c.found_by == "default location" ? c.found_by : c.shown;
      if (shown != tk.found_by && !found_through(tk, shown)) tk.also_found_by.push_back(shown);
      continue;
    }
    auto tk = probe_toolkit(c.root, c.found_by, search);
    if (!tk) {
      note_ignored(c, tk.error(), out);
      continue;
    }
    identities.push_back(identity);
    found.push_back(std::move(*tk));
  }
  merge_wrappers(found);
  return out;
}

}  // namespace

std::vector<Toolkit> find_toolkits(const ToolkitSearch& search) { return search_toolkits(search).found; }

Result<Toolkit> choose_toolkit(const ToolkitSearch& search, ToolkitPurpose purpose, std::optional<int> cuda_major) {
  if (search.cuda_root) {
    TRY_ASSIGN(auto tk, probe_toolkit(*search.cuda_root, "--cuda-root", search));
    tk.choice.by = ChosenBy::CudaRoot;
    return tk;
  }
  auto [found, ignored] = search_toolkits(search);
  auto chosen = choose_found_toolkit(found, search, purpose, cuda_major);
  if (chosen)
    chosen->choice.notes = std::move(ignored);
  else
    for (const auto& note : ignored) chosen.error().message += "\n" + note;
  return chosen;
}

Result<Toolkit> choose_found_toolkit(const std::vector<Toolkit>& all, const ToolkitSearch& search,
                                     ToolkitPurpose purpose, std::optional<int> cuda_major) {
  if (all.empty())
    return fail(ErrorCode::NoToolkit,
                "no CUDA toolkit found (looked at CUDA_PATH, CUDA_PATH_Vx_y, CUDA_HOME, CUDA_ROOT, nvcc on PATH and "
                "the default locations). Install the CUDA toolkit first, or pass --cuda-root DIR.");
  std::vector<Toolkit> fit = all;
  if (purpose == ToolkitPurpose::Install && cuda_major) {
    std::erase_if(fit, [&](const Toolkit& tk) { return tk.version.major != *cuda_major; });
    if (fit.empty() && all.size() > 1)  // (one toolkit of another major: the plan refuses it, naming both)
      return fail(ErrorCode::CudaMismatch, "the archive is built for CUDA " + std::to_string(*cuda_major) +
                                               " but no CUDA " + std::to_string(*cuda_major) +
                                               " toolkit was found. Found:" + describe_all(all));
  }
  if (all.size() == 1) return take_toolkit(all.front(), ChosenBy::OnlyOne, all);  // nothing to choose between
  if (auto named = named_by_variable(fit, search))
    return take_toolkit(named->first, ChosenBy::Variable, all, named->second);
  if (fit.size() == 1) return take_toolkit(fit.front(), ChosenBy::OnlyForMajor, all, "", cuda_major);
  return std::unexpected(several_toolkits(purpose, fit));
}

std::string found_by_text(const Toolkit& toolkit) {
  if (toolkit.also_found_by.empty()) return toolkit.found_by;
  std::string also;
  for (const auto& source : toolkit.also_found_by) also += (also.empty() ? "" : ", ") + source;
  return toolkit.found_by + " (also " + also + ")";
}

std::string to_string(const ToolkitChoice& choice) {
  switch (choice.by) {
    case ChosenBy::NotChosen:
      return "not-chosen";
    case ChosenBy::CudaRoot:
      return "--cuda-root";
    case ChosenBy::Variable:
      return choice.variable;
    case ChosenBy::OnlyOne:
      return "only-toolkit";
    case ChosenBy::OnlyForMajor:
      return "only-for-cuda-major";
  }
  return "not-chosen";
}

std::string choice_text(const Toolkit& toolkit) {
  const ToolkitChoice& c = toolkit.choice;
  std::string why;
  if (c.by == ChosenBy::Variable) why = "from " + c.variable;
  if (c.by == ChosenBy::OnlyForMajor && c.cuda_major)
    why = "the only CUDA " + std::to_string(*c.cuda_major) + " toolkit, which the archive is built for";
  if (c.others.empty()) return why;
  std::string others;
  for (const auto& o : c.others)
    others += (others.empty() ? "" : ", ") + o.root.string() + " (CUDA " + o.version + ", " + o.found_by + ")";
  return (why.empty() ? "" : why + "; ") + "also found: " + others + "; use --cuda-root to pick another";
}

std::optional<std::string> nvcc_version_output(ProcessRunner& runner, const fs::path& nvcc) {
  RunOptions options;
  options.timeout = std::chrono::seconds(30);
  auto ran = runner.run({utf8_text(nvcc), "--version"}, options);
  if (!ran || !ran->succeeded()) return std::nullopt;
  return ran->out;
}

}  // namespace cudnn_install
