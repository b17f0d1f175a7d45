// The dry-run filesystem: reads go to the real tree through an overlay of the changes so far,
// writes only go into the overlay (and the list of changes).
#include "cudnn_install/preview.hpp"

#include <set>

#include <algorithm>

#include "base/try.hpp"
#include "cudnn_install/state_dir.hpp"
#include "cudnn_install/txn.hpp"
#include "free_space.hpp"
#include "toolkit_identity.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

fs::path normal(const fs::path& path) { return path.lexically_normal(); }

// Counts what would be written; keeps none of it.
class CountingOutputFile final : public OutputFile {
 public:
  CountingOutputFile(PreviewFileSystem& fs, fs::path path) : fs_(fs), path_(std::move(path)) {}
  Result<void> write(std::span<const char> bytes) override {
    size_ += bytes.size();
    return {};
  }
  Result<void> sync_and_close() override {
    fs_.set_size(path_, size_);
    return {};
  }

 private:
  PreviewFileSystem& fs_;
  fs::path path_;
  std::uint64_t size_ = 0;
};

std::unexpected<Error> would_fail(const std::string& what, const fs::path& path, const std::string& why) {
  return fail(ErrorCode::Io, what + " '" + path.string() + "': " + why, path.string());
}

}  // namespace

std::optional<PreviewFileSystem::Node> PreviewFileSystem::overlaid(const fs::path& path) const {
  fs::path p = normal(path);
  if (auto it = nodes_.find(p); it != nodes_.end()) return it->second;
  for (fs::path dir = p.parent_path(); !dir.empty() && dir != dir.parent_path(); dir = dir.parent_path())
    if (auto it = nodes_.find(dir); it != nodes_.end() && !it->second.stat) return Node{};  // under a removed dir
  return std::nullopt;
}

Result<void> PreviewFileSystem::check_writable(const fs::path& path, const char* what) {
  fs::path dir = normal(path).parent_path();
  if (overlaid(dir)) return {};  // made by this run: its own
  if (!may_write_(dir)) return would_fail(what, path, "permission denied (run with the rights to change the toolkit)");
  return {};
}

void PreviewFileSystem::set_size(const fs::path& path, std::uint64_t size) {
  if (auto it = nodes_.find(normal(path)); it != nodes_.end()) {
    std::optional<FileStat>& stat = it->second.stat;
    if (stat) stat->size = size;
  }
  for (auto& c : changes_)
    if (c.kind == PreviewChange::Kind::Create && c.path == normal(path)) c.bytes = size;
}

Result<std::unique_ptr<OutputFile>> PreviewFileSystem::create_new(const fs::path& path, std::uint32_t mode) {
  TRY_ASSIGN(auto there, stat(path));
  if (there) return would_fail("cannot create", path, "it exists already");
  TRY(check_writable(path, "cannot create"));
  nodes_[normal(path)] = Node{FileStat{EntryType::File, 0, mode, {}}, std::string(), {}};
  changes_.push_back({PreviewChange::Kind::Create, normal(path), {}, 0});
  return std::make_unique<CountingOutputFile>(*this, path);
}

Result<void> PreviewFileSystem::make_symlink(const std::string& target, const fs::path& link) {
  TRY(check_writable(link, "cannot create symlink"));
  nodes_[normal(link)] = Node{FileStat{EntryType::Symlink, target.size(), 0777, target}, std::nullopt, {}};
  changes_.push_back({PreviewChange::Kind::Symlink, normal(link), target, 0});
  return {};
}

Result<void> PreviewFileSystem::rename(const fs::path& from, const fs::path& to, RenameMode mode) {
  TRY_ASSIGN(auto st, stat(from));
  if (!st) return would_fail("cannot move '" + from.string() + "' to", to, "the source is not there");
  if (mode == RenameMode::NoReplace) {
    TRY_ASSIGN(auto there, stat(to));
    if (there) return would_fail("cannot move '" + from.string() + "' to", to, "something is already there");
  }
  TRY(check_writable(from, "cannot move"));
  TRY(check_writable(to, "cannot move to"));
  Node moved = overlaid(from).value_or(Node{st, std::nullopt, normal(from)});
  nodes_[normal(to)] = moved;
  nodes_[normal(from)] = Node{};
  changes_.push_back({PreviewChange::Kind::Move, normal(from), normal(to), st->size});
  return {};
}

Result<void> PreviewFileSystem::remove(const fs::path& path) {
  TRY_ASSIGN(auto st, stat(path));
  if (!st) return would_fail("cannot remove", path, "it is not there");
  if (st->type == EntryType::Directory) {
    TRY_ASSIGN(auto names, list_dir(path));
    if (!names.empty()) return would_fail("cannot remove directory", path, "it is not empty");
  }
  TRY(check_writable(path, "cannot remove"));
  nodes_[normal(path)] = Node{};
  changes_.push_back({PreviewChange::Kind::Remove, normal(path), {}, st->size});
  return {};
}

Result<void> PreviewFileSystem::make_dir(const fs::path& path) {
  TRY_ASSIGN(auto there, stat(path));
  if (there) return would_fail("cannot create directory", path, "it exists already");
  TRY(check_writable(path, "cannot create directory"));
  nodes_[normal(path)] = Node{FileStat{EntryType::Directory, 0, 0755, {}}, std::nullopt, {}};
  changes_.push_back({PreviewChange::Kind::MakeDir, normal(path), {}, 0});
  return {};
}

Result<void> PreviewFileSystem::sync_dir(const fs::path& path) {
  TRY_ASSIGN(auto there, stat(path));
  if (!there) return would_fail("cannot open directory", path, "it is not there");
  return {};
}

Result<void> PreviewFileSystem::append_durable(const fs::path& path, std::string_view bytes) {
  TRY_ASSIGN(auto there, stat(path));
  std::string content;
  if (there) {
    TRY_ASSIGN(content, read_file(path));
    if (!overlaid(path) && !may_write_(path))
      return would_fail("cannot open", path, "permission denied (run with the rights to change the toolkit)");
  } else {
    TRY(check_writable(path, "cannot open"));
  }
  content += bytes;
  nodes_[normal(path)] = Node{FileStat{EntryType::File, content.size(), 0644, {}}, content, {}};
  changes_.push_back({PreviewChange::Kind::Append, normal(path), {}, bytes.size()});
  return {};
}

Result<std::optional<FileStat>> PreviewFileSystem::stat(const fs::path& path) {
  if (auto node = overlaid(path)) return node->stat;
  return real_.stat(path);
}

Result<void> PreviewFileSystem::read_chunks(const fs::path& path, const ChunkReader& sink) {
  auto node = overlaid(path);
  if (!node) return real_.read_chunks(path, sink);
  if (!node->stat) return would_fail("cannot read", path, "it is not there");
  if (node->content) sink(*node->content);
  if (!node->content && !node->source.empty()) return real_.read_chunks(node->source, sink);
  return {};  // created by this run: its bytes were counted, not kept
}

Result<std::vector<std::string>> PreviewFileSystem::list_dir(const fs::path& path) {
  fs::path dir = normal(path);
  std::set<std::string> names;
  if (auto node = overlaid(dir)) {
    if (!node->stat) return would_fail("cannot list", path, "it is not there");
  } else if (auto real = real_.list_dir(dir)) {
    names.insert(real->begin(), real->end());
  } else {
    return std::unexpected(real.error());
  }
  for (const auto& [p, node] : nodes_) {
    if (p.parent_path() != dir) continue;
    if (node.stat)
      names.insert(p.filename().string());
    else
      names.erase(p.filename().string());
  }
  return std::vector<std::string>(names.begin(), names.end());
}

std::optional<FileIdentity> PreviewFileSystem::identity(const fs::path& path) {
  if (overlaid(path)) return std::nullopt;  // changed by this run: nothing to remember it by
  return real_.identity(path);
}

Result<std::optional<RegValue>> PreviewEnvStore::read(EnvScope scope, std::string_view name) {
  if (auto it = written_.find({scope, std::string(name)}); it != written_.end()) return it->second;
  if (!real_) return std::optional<RegValue>();
  return real_->read(scope, name);
}

Result<void> PreviewEnvStore::write(EnvScope scope, std::string_view name, const RegValue& value) {
  written_[{scope, std::string(name)}] = value;
  return {};
}

Result<void> PreviewEnvStore::erase(EnvScope scope, std::string_view name) {
  written_[{scope, std::string(name)}] = std::nullopt;
  return {};
}

}  // namespace cudnn_install

namespace cudnn_install {
namespace {

bool under(const fs::path& path, const fs::path& dir) {
  auto [d, p] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return d == dir.end();
}

std::string shown(const fs::path& path, const fs::path& root) {
  return under(path, root) ? path.lexically_relative(root).generic_string() : path.string();
}

std::string bytes_text(std::uint64_t bytes) { return std::to_string(bytes) + " bytes"; }

}  // namespace

std::vector<std::string> describe_changes(const std::vector<PreviewChange>& changes, const fs::path& root) {
  fs::path r = normal(root), state = normal(state_dir(root));
  std::vector<std::string> lines;
  std::uint64_t restored = 0, removed = 0, created = 0;
  bool bookkeeping = false;
  for (const auto& c : changes) {
    using K = PreviewChange::Kind;
    bool in_state = under(c.path, state) && (c.kind != K::Move || under(c.to, state));
    if (in_state) {
      bookkeeping = true;
      continue;
    }
    if (c.kind == K::Move && under(c.path, state)) {
      lines.push_back("restore  " + shown(c.to, r) + " (" + bytes_text(c.bytes) + ", from the backup)");
      restored += c.bytes;
    } else if (c.kind == K::Move && under(c.to, state)) {
      lines.push_back("remove   " + shown(c.path, r) + " (" + bytes_text(c.bytes) + ", kept in the backup)");
      removed += c.bytes;
    } else if (c.kind == K::Move) {
      lines.push_back("move     " + shown(c.path, r) + " to " + shown(c.to, r));
    } else if (c.kind == K::Remove) {
      lines.push_back("remove   " + shown(c.path, r) + " (" + bytes_text(c.bytes) + ")");
      removed += c.bytes;
    } else if (c.kind == K::MakeDir) {
      lines.push_back("mkdir    " + shown(c.path, r));
    } else {
      lines.push_back("create   " + shown(c.path, r) + " (" + bytes_text(c.bytes) + ")");
      created += c.bytes;
    }
  }
  if (bookkeeping)
    lines.push_back("state    " + shown(state, r) + ": the journal, backups and history of the transactions undone");
  lines.push_back("total    " + bytes_text(restored) + " restored, " + bytes_text(removed) + " removed" +
                  (created ? ", " + bytes_text(created) + " created" : ""));
  return lines;
}

Result<void> check_state_lock_possible(FileSystem& fs, const fs::path& root, const MayWrite& may) {
  fs::path dir = state_dir(root), lock = dir / "lock";
  TRY_ASSIGN(auto dir_there, fs.stat(dir));
  TRY_ASSIGN(auto lock_there, fs.stat(lock));
  fs::path needed = lock_there ? lock : dir_there ? dir : root;
  if (may(needed)) return {};
  return fail(ErrorCode::Io,
              "cannot " + std::string(lock_there ? "open '" : "create '") + (lock_there ? lock : dir).string() +
                  "': permission denied (run with the rights to change the toolkit: root, or an administrator on "
                  "Windows)",
              needed.string());
}

namespace {

// The nearest directory that exists at or above `path`: where a new entry (or the directories
// leading to it) would be created.
fs::path existing_dir(FileSystem& fs, fs::path path) {
  for (path = path.parent_path(); !path.empty() && path != path.parent_path(); path = path.parent_path())
    if (auto st = fs.stat(path); st && *st) return path;
  return path;
}

std::unexpected<Error> no_rights(const fs::path& dir, const std::string& target) {
  return fail(ErrorCode::Io,
              "cannot write in '" + dir.string() + "' (for " + target +
                  "): permission denied (run with the rights to change the toolkit: root, or an administrator on "
                  "Windows)",
              dir.string());
}

}  // namespace

std::string OutsideDir::describe() const {
  return dir + "/ is " + real.string() + ", outside the toolkit's real path " + real_root.string();
}

std::vector<OutsideDir> dirs_outside_real_root(const fs::path& root, const std::vector<std::string>& targets) {
  fs::path real_root = real_path_of(root);
  std::vector<OutsideDir> out;
  if (real_root.empty()) return out;
  std::set<fs::path> seen;
  for (const auto& target : targets) {
    if (fs::path(target).is_absolute()) continue;
    fs::path dir = real_path_of(root / fs::path(target).parent_path());
    if (dir.empty() || under(dir, real_root) || !seen.insert(dir).second) continue;
    out.push_back({fs::path(target).parent_path().generic_string(), dir, real_root});
  }
  return out;
}

namespace {

// The targets a plan writes or removes (absolute ones included: the caller skips them).
std::vector<std::string> targets_changed_by(const Plan& plan) {
  std::vector<std::string> targets;
  for (const auto& s : plan.steps)
    if (s.action != Action::KeepOther && s.action != Action::SkipIdentical) targets.push_back(s.target);
  return targets;
}

}  // namespace

std::vector<OutsideDir> dirs_outside_real_root(const fs::path& root, const Plan& plan) {
  return dirs_outside_real_root(root, targets_changed_by(plan));
}

Result<std::vector<OutsideDir>> dirs_outside_real_root_of_undo(FileSystem& fs, const fs::path& root, UndoScope scope,
                                                               const Plan& then) {
  TRY_ASSIGN(auto history, read_history(fs, root));
  std::vector<std::string> targets;
  for (std::size_t i = 0; i < history.size(); ++i)
    if (scope == UndoScope::All || i + 1 == history.size())
      targets.insert(targets.end(), history[i].targets.begin(), history[i].targets.end());
  auto more = targets_changed_by(then);
  targets.insert(targets.end(), more.begin(), more.end());
  return dirs_outside_real_root(root, targets);
}

Result<InstallForecast> forecast_install(FileSystem& fs, const fs::path& root, const Plan& plan, const MayWrite& may) {
  TRY(check_state_lock_possible(fs, root, may));
  SpaceNeeded space(fs);
  for (const auto& s : plan.steps) {
    if (s.action != Action::Create && s.action != Action::Overwrite && s.action != Action::Remove) continue;
    fs::path target = root / s.target;  // an absolute target (the loader configuration) stays itself
    fs::path dir = existing_dir(fs, target);
    if (!may(dir)) return no_rights(dir, s.target);
    if (s.action != Action::Remove && s.type == EntryType::File) space.add(target, s.size);
  }
  TRY(space.check());
  InstallForecast forecast;
  for (const auto& d : dirs_outside_real_root(root, plan))
    forecast.warnings.push_back(d.describe() + ": files are written there");
  return forecast;
}

}  // namespace cudnn_install
