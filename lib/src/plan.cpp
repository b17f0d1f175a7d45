#include "cudnn_install/plan.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <string_view>

#include "archive_inspect.hpp"
#include "base/try.hpp"
#include "base/util.hpp"

namespace cudnn_install {
namespace {

// An archive for another CPU (sbsa libraries into an x86_64 toolkit) would install and then fail to
// load; refused when the toolkit says which CPUs it holds libraries for (targets/).
std::optional<std::unexpected<Error>> archive_target_missing(const ArchiveInfo& archive, const Toolkit& toolkit) {
  if (!archive.name || archive.os != TargetOs::Linux || toolkit.targets.empty()) return std::nullopt;
  auto target = linux_target_of(archive.name->platform);
  if (!target || std::find(toolkit.targets.begin(), toolkit.targets.end(), *target) != toolkit.targets.end())
    return std::nullopt;
  std::string held;
  for (const auto& t : toolkit.targets) held += (held.empty() ? "" : ", ") + t;
  return fail(ErrorCode::CudaMismatch,
              "this archive is built for " + archive.name->platform + " (" + *target + ") but the CUDA toolkit at '" +
                  toolkit.root.string() + "' holds libraries for " + held + " only; download the archive for that CPU");
}

Result<void> check_compatible(const ArchiveInfo& archive, const Toolkit& toolkit) {
  if (archive.os != toolkit.os)
    return fail(ErrorCode::CudaMismatch, std::string("this is a ") + to_string(archive.os) +
                                             " archive but the CUDA toolkit at '" + toolkit.root.string() + "' is a " +
                                             to_string(toolkit.os) + " toolkit; download the " + to_string(toolkit.os) +
                                             " archive instead");
  if (auto arch = archive_target_missing(archive, toolkit)) return std::unexpected(arch->error());
  // However the archive was identified (its name, its sha256, its top folder), it has NVIDIA's name.
  if (!archive.name)
    return fail(ErrorCode::CudaMismatch,
                "which CUDA version this archive is built for is not known, so it cannot be checked against the "
                "toolkit at '" +
                    toolkit.root.string() + "'; give the archive NVIDIA's name for it, or pass --manifest");
  if (archive.name->cuda.major != toolkit.version.major)
    return fail(ErrorCode::CudaMismatch,
                "the archive is built for CUDA " + archive.name->cuda.text + " but the toolkit at '" +
                    toolkit.root.string() + "' is CUDA " + toolkit.version.to_string() + "; download the _cuda" +
                    std::to_string(toolkit.version.major) + " archive of this cuDNN, or pass --cuda-root for a CUDA " +
                    std::to_string(archive.name->cuda.major) + " toolkit");
  return {};
}

// A file whose mode no install would give it (setuid, world-writable, ...) is rewritten even
// when its bytes are the archive's, so that a reinstall repairs it.
bool unsafe_mode(const ExistingFile& old) { return old.type == EntryType::File && (old.mode & kUnsafeModeBits) != 0; }

bool identical(const Entry& e, const ExistingFile& old) {
  if (e.raw.type != old.type || unsafe_mode(old)) return false;
  if (e.raw.type == EntryType::Symlink) return e.raw.link_target == old.link_target;
  return e.raw.size == old.size && e.raw.crc32 && old.crc32 && *e.raw.crc32 == *old.crc32;
}

Step step_for(const Entry& e, const std::string& target, const TreeState& tree) {
  std::uint32_t mode = e.raw.type == EntryType::File ? installed_mode(e.file_name, e.raw.mode) : 0;
  Step s{Action::Create, target, e.raw.name, e.role, e.raw.type, e.raw.size, mode, e.raw.link_target, {}, {}};
  auto it = tree.targets.find(target);
  if (it == tree.targets.end()) return s;
  if (identical(e, it->second)) {
    s.action = Action::SkipIdentical;
  } else {
    s.action = Action::Overwrite;
    s.old = it->second;
    s.reason = it->second.type == EntryType::Symlink ? "replaces a symlink to '" + it->second.link_target + "'"
               : unsafe_mode(it->second)             ? "replaces a file with unsafe permissions"
                                                     : "replaces a different file";
  }
  return s;
}

Step stale_step(const std::string& target, const ExistingFile& old, int new_major, const PlanOptions& options) {
  std::string file = target.substr(target.rfind('/') + 1);
  Step s{Action::Remove, target, {}, classify(target), old.type, old.size, old.mode, old.link_target, {}, {}, old};
  auto major = cudnn_major_of(file);
  if (major && *major != new_major) {
    s.action = Action::KeepOther;
    s.reason = "cuDNN " + std::to_string(*major) + " file kept: programs built against cuDNN " +
               std::to_string(*major) + " still load it";
  } else if (options.stale == PlanOptions::StaleFiles::Keep) {
    s.action = Action::KeepOther;
    s.reason = "not part of this cuDNN; kept as asked";
  } else {
    s.reason = major ? "left over from an older cuDNN " + std::to_string(*major) + ".x"
                     : "not part of this cuDNN (orphaned by the new headers/libraries)";
  }
  return s;
}

// Every target must fit its filesystem's limits before anything is written: a name that does not
// fails at the rename into place, half-way through the swap.
Result<void> check_names_fit(const std::map<std::string, std::string>& claimed, const Toolkit& toolkit,
                             const TreeState& tree) {
  std::vector<std::string> problems;
  for (const auto& [target, entry] : claimed) {
    auto limits = tree.name_limits.find(std::filesystem::path(target).parent_path().generic_string());
    if (limits == tree.name_limits.end()) continue;
    if (auto why = name_does_not_fit(toolkit.root, target, limits->second))
      problems.push_back("entry '" + entry + "': " + *why);
  }
  if (problems.empty()) return {};
  std::string message = "refusing the archive: the toolkit's filesystem cannot hold what it would install:";
  for (std::size_t i = 0; i < problems.size() && i < 20; ++i) message += "\n  - " + problems[i];
  if (problems.size() > 20) message += "\n  ... and " + std::to_string(problems.size() - 20) + " more";
  return fail(ErrorCode::UnsafeEntry, message, problems.front());
}

}  // namespace

std::optional<std::string> name_does_not_fit(const std::filesystem::path& root, const std::string& target,
                                             const NameLimits& limits) {
  // The temporary beside the target: ".cudnn-install-<id>-<n>.tmp", its id a UTC time and a PID.
  constexpr std::size_t kTempNameBytes = 64;
  std::filesystem::path full = root / target;
  std::string name = full.filename().string();
  if (name.size() > limits.name_max)
    return "the file name '" + name + "' is " + std::to_string(name.size()) + " bytes; the filesystem of '" +
           full.parent_path().string() + "' holds names of at most " + std::to_string(limits.name_max) + " bytes";
  std::size_t longest = std::max(full.string().size(), full.parent_path().string().size() + 1 + kTempNameBytes);
  if (longest + 1 > limits.path_max)
    return "the path '" + full.string() + "' (or the temporary file beside it) is " + std::to_string(longest) +
           " bytes; the filesystem of '" + full.parent_path().string() + "' holds paths of at most " +
           std::to_string(limits.path_max - 1) + " bytes";
  return std::nullopt;
}

std::size_t Plan::count(Action a) const {
  return static_cast<std::size_t>(
      std::count_if(steps.begin(), steps.end(), [a](const Step& s) { return s.action == a; }));
}

bool Plan::changes_anything() const {
  return !dirs_to_create.empty() || env_edit ||
         count(Action::Create) + count(Action::Overwrite) + count(Action::Remove) > 0;
}

std::string target_of(const Entry& entry, const Toolkit& toolkit) {
  std::filesystem::path dir;
  switch (dest_of(entry.role)) {
    case DestDir::Include:
      dir = toolkit.include_dir;
      break;
    case DestDir::Bin:
      dir = toolkit.bin_dir;
      break;
    case DestDir::Lib:
      dir = toolkit.lib_dir;
      break;
    case DestDir::ImportLib:
      dir = toolkit.import_lib_dir;
      break;
    case DestDir::None:
      return {};
  }
  return (dir / entry.file_name).generic_string();
}

namespace {

// The number that `text` is made of, if it is only digits (and not empty).
std::optional<int> all_digits(std::string_view text) {
  int value = 0;
  auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || text.empty() || rest != text.data() + text.size()) return std::nullopt;
  return value;
}

// cudnn*64_<N>.dll and cudnn*64_<N>.lib, any case.
std::optional<int> windows_major(std::string name) {
  name = util::lower(std::move(name));
  if (!name.starts_with("cudnn") || !(name.ends_with(".dll") || name.ends_with(".lib"))) return std::nullopt;
  std::string_view stem(name.data(), name.size() - 4);
  std::size_t at = stem.rfind("64_");
  if (at == std::string_view::npos || at < 5) return std::nullopt;
  return all_digits(stem.substr(at + 3));
}

// libcudnn*.so.<N> and libcudnn*.so.<N>.<anything>.
std::optional<int> linux_major(std::string_view name) {
  if (!name.starts_with("libcudnn")) return std::nullopt;
  for (std::size_t at = name.find(".so.", 8); at != std::string_view::npos; at = name.find(".so.", at + 1)) {
    std::string_view rest = name.substr(at + 4);
    if (auto major = all_digits(rest.substr(0, rest.find('.')))) return major;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int> cudnn_major_of(const std::string& file_name) {
  if (auto major = windows_major(file_name)) return major;
  return linux_major(file_name);
}

Result<Plan> make_plan(const ArchiveInfo& archive, const Toolkit& toolkit, const TreeState& tree,
                       const PlanOptions& options) {
  TRY(check_compatible(archive, toolkit));
  Plan plan;
  plan.toolkit_root = toolkit.root.string();
  plan.archive_name = archive.name ? archive.name->file_name : archive.path.filename().string();
  plan.cudnn_version = archive.name ? archive.name->version.to_string() : archive.header_version.to_string();
  plan.cuda_version = toolkit.version.to_string();
  plan.dirs_to_create = tree.missing_dirs;
  plan.notes = archive.ignored;
  std::map<std::string, std::string> claimed;  // target -> entry
  for (const auto& e : archive.entries) {
    std::string target = target_of(e, toolkit);
    if (target.empty()) continue;
    if (auto [it, fresh] = claimed.emplace(target, e.raw.name); !fresh)
      return fail(ErrorCode::UnsafeEntry,
                  "entries '" + it->second + "' and '" + e.raw.name + "' would both be installed as '" + target + "'",
                  target);
    plan.steps.push_back(step_for(e, target, tree));
    if (plan.steps.back().action != Action::SkipIdentical && e.raw.type == EntryType::File)
      plan.bytes_to_write += e.raw.size;
  }
  TRY(check_names_fit(claimed, toolkit, tree));
  for (const auto& [target, old] : tree.cudnn_files)
    if (!claimed.count(target)) plan.steps.push_back(stale_step(target, old, archive.header_version.major, options));
  for (const auto& g : options.generated) {
    Step s{Action::Create,
           g.target,
           {},
           Role::LoaderConfig,
           EntryType::File,
           g.content.size(),
           installed_mode(g.target, 0),
           {},
           {},
           g.content};
    if (g.current) s.action = *g.current == g.content ? Action::SkipIdentical : Action::Overwrite;
    if (s.action != Action::SkipIdentical) plan.bytes_to_write += s.size;
    plan.steps.push_back(std::move(s));
  }
  plan.env_edit = options.env_edit;
  plan.env_entry = options.env_entry;
  return plan;
}

Plan removal_plan(const Toolkit& toolkit, const std::map<std::string, ExistingFile>& files) {
  Plan plan;
  plan.toolkit_root = toolkit.root.string();
  plan.archive_name = "(uninstall --force)";
  plan.cuda_version = toolkit.version.to_string();
  for (const auto& [target, old] : files)
    plan.steps.push_back({Action::Remove,
                          target,
                          {},
                          classify(target),
                          old.type,
                          old.size,
                          old.mode,
                          old.link_target,
                          "not installed by cudnn-install; removed because of --force",
                          {},
                          old});
  return plan;
}

const char* to_string(Action a) {
  switch (a) {
    case Action::Create:
      return "create";
    case Action::Overwrite:
      return "overwrite";
    case Action::SkipIdentical:
      return "skip-identical";
    case Action::Remove:
      return "remove";
    case Action::KeepOther:
      return "keep";
  }
  return "?";
}

}  // namespace cudnn_install
