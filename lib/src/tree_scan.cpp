// The I/O half of planning: what the toolkit tree holds now at every place the plan may touch.
#include <set>

#include "cudnn_install/plan.hpp"
#include "util.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::optional<ExistingFile> look(const fs::path& path) {
  std::error_code ec;
  auto status = fs::symlink_status(path, ec);
  if (ec || !fs::exists(status)) return std::nullopt;
  ExistingFile f;
  f.mode = static_cast<std::uint32_t>(status.permissions()) & 07777;
  if (fs::is_symlink(status)) {
    f.type = EntryType::Symlink;
    f.link_target = fs::read_symlink(path, ec).string();
  } else if (fs::is_directory(status)) {
    f.type = EntryType::Directory;
  } else if (fs::is_regular_file(status)) {
    f.size = fs::file_size(path, ec);
  } else {
    f.type = EntryType::Other;
  }
  return f;
}

bool is_cudnn_file(const std::string& name) {
  std::string n = util::lower(name);
  return n.starts_with("cudnn") || n.starts_with("libcudnn");
}

// Every cudnn* file (not directory) directly in root/dir, keyed by its root-relative path.
void add_cudnn_files(const fs::path& root, const fs::path& dir, std::map<std::string, ExistingFile>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(root / dir, ec), end; !ec && it != end; it.increment(ec))
    if (is_cudnn_file(it->path().filename().string()))
      if (auto f = look(it->path()); f && f->type != EntryType::Directory)
        out[(dir / it->path().filename()).generic_string()] = *f;
}

void add_missing_dirs(const fs::path& root, const fs::path& rel, std::vector<std::string>& missing) {
  fs::path partial;
  for (const auto& part : rel) {
    partial /= part;
    std::error_code ec;
    if (fs::exists(root / partial, ec)) continue;
    std::string s = partial.generic_string();
    if (std::find(missing.begin(), missing.end(), s) == missing.end()) missing.push_back(s);
  }
}

// The CRC-32 of an existing file the same size as the new one: from its stamp, or by reading it.
std::optional<std::uint32_t> crc_of(const std::string& target, const fs::path& full, const KnownCrc& known,
                                    TreeState& tree) {
  if (known)
    if (auto crc = known(target, full)) return crc;
  ++tree.files_read;
  return util::file_crc32(full);
}

}  // namespace

Result<TreeState> scan_tree(const ArchiveInfo& archive, const Toolkit& toolkit, const KnownCrc& known) {
  TreeState tree;
  std::set<fs::path> dirs;
  for (const auto& e : archive.entries) {
    std::string target = target_of(e, toolkit);
    if (target.empty()) continue;
    fs::path full = toolkit.root / target;
    dirs.insert(fs::path(target).parent_path());
    auto old = look(full);
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
    add_missing_dirs(toolkit.root, dir, tree.missing_dirs);
    add_cudnn_files(toolkit.root, dir, tree.cudnn_files);
  }
  return tree;
}

std::map<std::string, ExistingFile> cudnn_files_in(const Toolkit& toolkit) {
  std::map<std::string, ExistingFile> files;
  std::set<fs::path> dirs{toolkit.include_dir, toolkit.lib_dir, toolkit.import_lib_dir};
  if (toolkit.os == TargetOs::Windows) dirs.insert(toolkit.bin_dir);
  for (const auto& dir : dirs) add_cudnn_files(toolkit.root, dir, files);
  return files;
}

}  // namespace cudnn_install
