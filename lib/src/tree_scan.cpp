// The I/O half of planning: what the toolkit tree holds now at every place the plan may touch.
#include <set>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/plan.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// What is at `path` (symlinks not followed); nullopt when nothing is.
Result<std::optional<ExistingFile>> look(FileSystem& fs, const fs::path& path) {
  TRY_ASSIGN(auto stat, fs.stat(path));
  if (!stat) return std::optional<ExistingFile>();
  ExistingFile f;
  f.type = stat->type;
  f.mode = stat->mode;
  f.link_target = stat->link_target;
  if (f.type == EntryType::File) f.size = stat->size;
  if (f.type == EntryType::File) f.identity = fs.identity(path);  // before any reading (file_stamps.hpp)
  return std::optional(f);
}

bool is_cudnn_file(const std::string& name) {
  std::string n = util::lower(name);
  return n.starts_with("cudnn") || n.starts_with("libcudnn");
}

// Every cudnn* file (not directory) directly in root/dir, keyed by its root-relative path. A
// directory that is missing or unreadable holds none.
void add_cudnn_files(FileSystem& fs, const fs::path& root, const fs::path& dir,
                     std::map<std::string, ExistingFile>& out) {
  auto names = fs.list_dir(root / dir);
  if (!names) return;
  for (const auto& name : *names)
    if (is_cudnn_file(name))
      if (auto f = look(fs, root / dir / name); f && *f && (*f)->type != EntryType::Directory)
        out[(dir / name).generic_string()] = **f;
}

// The directories of `rel` (root-relative) that do not exist yet, parents first.
Result<void> add_missing_dirs(FileSystem& fs, const fs::path& root, const fs::path& rel,
                              std::vector<std::string>& missing) {
  fs::path partial;
  for (const auto& part : rel) {
    partial /= part;
    TRY_ASSIGN(auto there, fs.stat(root / partial));
    std::string s = partial.generic_string();
    if (!there && std::find(missing.begin(), missing.end(), s) == missing.end()) missing.push_back(s);
  }
  return {};
}

// The CRC-32 of an existing file the same size as the new one: from its stamp, or by reading it.
std::optional<std::uint32_t> crc_of(const std::string& target, const fs::path& full, const KnownCrc& known,
                                    TreeState& tree) {
  if (known)
    if (auto crc = known(target, full)) return crc;
  ++tree.files_read;
  return util::file_crc32(full);
}

// The names the filesystem of root/dir holds, asked of its nearest existing directory.
std::optional<NameLimits> limits_for(FileSystem& fs, const fs::path& root, const fs::path& dir) {
  for (fs::path at = root / dir;; at = at.parent_path()) {
    if (auto st = fs.stat(at); st && *st) return fs.name_limits(at);
    if (at == at.parent_path() || at.empty()) return std::nullopt;
  }
}

}  // namespace

Result<TreeState> scan_tree(FileSystem& fs, const ArchiveInfo& archive, const Toolkit& toolkit, const KnownCrc& known) {
  TreeState tree;
  std::set<fs::path> dirs;
  for (const auto& e : archive.entries)
    if (std::string target = target_of(e, toolkit); !target.empty()) dirs.insert(fs::path(target).parent_path());
  for (const auto& dir : dirs)
    if (auto limits = limits_for(fs, toolkit.root, dir)) tree.name_limits[dir.generic_string()] = *limits;
  for (const auto& e : archive.entries) {
    std::string target = target_of(e, toolkit);
    if (target.empty()) continue;
    fs::path full = toolkit.root / target;
    auto limits = tree.name_limits.find(fs::path(target).parent_path().generic_string());
    if (limits != tree.name_limits.end() && name_does_not_fit(toolkit.root, target, limits->second))
      continue;  // cannot be there (lstat would fail): make_plan refuses it, naming it
    TRY_ASSIGN(auto old, look(fs, full));
    if (!old) continue;
    if (old->type == EntryType::Directory || old->type == EntryType::Other)
      return fail(
          ErrorCode::Conflict,
          "'" + full.string() + "' is a directory or special file where cuDNN needs to put a file; move it away first",
          full.string());
    if (old->type == EntryType::File && e.raw.crc32 && old->size == e.raw.size)
      old->crc32 = crc_of(target, full, known, tree);
    tree.targets[target] = *old;
  }
  for (const auto& dir : dirs) {
    TRY(add_missing_dirs(fs, toolkit.root, dir, tree.missing_dirs));
    add_cudnn_files(fs, toolkit.root, dir, tree.cudnn_files);
  }
  return tree;
}

std::map<std::string, ExistingFile> cudnn_files_in(FileSystem& fs, const Toolkit& toolkit) {
  std::map<std::string, ExistingFile> files;
  std::set<fs::path> dirs{toolkit.include_dir, toolkit.lib_dir, toolkit.import_lib_dir};
  if (toolkit.os == TargetOs::Windows) dirs.insert(toolkit.bin_dir);
  for (const auto& dir : dirs) add_cudnn_files(fs, toolkit.root, dir, files);
  return files;
}

}  // namespace cudnn_install
