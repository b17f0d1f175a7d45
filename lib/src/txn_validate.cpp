#include "txn_validate.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "cudnn_install/state_dir.hpp"
#include "txn_paths.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// Root-relative and normalised as the plan writes it: '/'-separated, no empty, "." or ".."
// component, no drive, no backslash, and not inside the state directory.
bool plain_relative(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find_first_of(std::string_view("\\:\0", 3)) != std::string_view::npos)
    return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    std::size_t slash = std::min(p.find('/', start), p.size());
    std::string_view part = p.substr(start, slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (start == 0 && lower(part) == kStateDirName) return false;
    start = slash + 1;
  }
  return true;
}

// The files the tool installs are cuDNN's own: headers, DLLs, import and static libraries and
// shared libraries whose names say cudnn.
bool installable_name(const std::string& file_name) {
  std::string name = lower(file_name);
  if (name.find("cudnn") == std::string::npos) return false;
  for (const char* ext : {".h", ".hpp", ".dll", ".lib", ".a", ".dylib", ".so"})
    if (name.ends_with(ext)) return true;
  return name.starts_with("lib") && name.find(".so.") != std::string::npos;
}

// The loader configuration file the transaction writes outside the toolkit (loader.hpp).
bool loader_conf(const std::string& target) {
  fs::path p(target);
  std::string name = p.filename().string();
  return p.is_absolute() && p == p.lexically_normal() && p.parent_path().filename() == "ld.so.conf.d" &&
         name.starts_with("cudnn-install-") && name.ends_with(".conf");
}

bool valid_target(const std::string& target) {
  if (loader_conf(target)) return true;
  return plain_relative(target) && installable_name(fs::path(target).filename().string());
}

std::unexpected<Error> untrusted(const fs::path& record, const std::string& what) {
  return fail(ErrorCode::Conflict,
              "the record in '" + record.string() + "' cannot be trusted: " + what +
                  ". cudnn-install wrote no such record, so it acts on none of it and nothing was changed. If "
                  "nobody edited it, the state directory was tampered with: inspect it, and move the record "
                  "away to go on (the files it names stay as they are).",
              record.string());
}

Result<void> check_step(const BeginRecord& b, std::size_t n, const fs::path& record) {
  const JournalStep& s = b.steps[n];
  std::string which = "step " + std::to_string(n + 1);
  if (!valid_target(s.target))
    return untrusted(record, which + "'s target '" + s.target +
                                 "' is not a cuDNN file inside the toolkit (relative, without '..') nor the "
                                 "loader configuration file");
  bool place = s.kind == JournalStep::Kind::Place;
  if (s.temp != (place ? txn_paths::temp_for(s.target, b.id, n) : std::string()))
    return untrusted(record,
                     which + "'s temporary '" + s.temp + "' is not the one the tool names beside '" + s.target + "'");
  // Earlier builds kept the loader configuration's backup in backup/<id>/ too.
  if (!s.backup.empty() && s.backup != txn_paths::backup_for(b.id, n) &&
      s.backup != txn_paths::backup_for_target(s.target, b.id, n))
    return untrusted(record,
                     which + "'s backup '" + s.backup + "' is not " + txn_paths::backup_for_target(s.target, b.id, n));
  if (!place && s.backup.empty()) return untrusted(record, which + " removes '" + s.target + "' without a backup");
  return {};
}

}  // namespace

bool valid_txn_id(std::string_view id) {
  if (id.empty() || id.size() > 80 || !std::isalnum(static_cast<unsigned char>(id.front())) ||
      id.find("..") != std::string_view::npos)
    return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
  });
}

Result<void> check_begin(const BeginRecord& b, const fs::path& record) {
  if (!valid_txn_id(b.id)) return untrusted(record, "its id '" + b.id + "' is not a transaction id");
  for (const auto& d : b.dirs_created)
    if (!plain_relative(d))
      return untrusted(record, "the directory '" + d + "' it created is not a path inside the toolkit");
  for (std::size_t n = 0; n < b.steps.size(); ++n)
    if (auto r = check_step(b, n, record); !r) return r;
  return {};
}

namespace {

Result<bool> state_entry(FileSystem& fs, const fs::path& path, EntryType expected, const char* what) {
  auto st = fs.stat(path);
  if (!st) return std::unexpected(st.error());
  if (!*st) return false;
  if ((*st)->type == expected) return true;
  return fail(ErrorCode::Conflict,
              "'" + path.string() + "' is " +
                  ((*st)->type == EntryType::Symlink ? std::string("a symbolic link") : std::string("not a ") + what) +
                  ", where cudnn-install keeps a " + what +
                  " of its own: it is not followed, and nothing was changed. Look at it, remove it and run again.",
              path.string());
}

}  // namespace

Result<bool> state_subdir(FileSystem& fs, const fs::path& dir) {
  return state_entry(fs, dir, EntryType::Directory, "directory");
}

Result<bool> state_file(FileSystem& fs, const fs::path& file) {
  return state_entry(fs, file, EntryType::File, "regular file");
}

}  // namespace cudnn_install
