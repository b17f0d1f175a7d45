// Undo, recovery, rollback and history. Undo looks at the disk rather than at progress records,
// so it is correct whatever point a crash interrupted, and running it twice changes nothing.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

#include "cudnn_install/txn.hpp"
#include "txn_paths.hpp"
#include "util.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

namespace txn_paths {

fs::path journal(const fs::path& root) { return state_dir(root) / "journal.jsonl"; }
fs::path history_file(const fs::path& root, const std::string& id) {
  return state_dir(root) / "history" / (id + ".jsonl");
}
std::string backup_dir(const std::string& id) { return std::string(kStateDirName) + "/backup/" + id; }
std::string backup_for(const std::string& id, std::size_t n) { return backup_dir(id) + "/" + std::to_string(n); }

std::string temp_for(const std::string& target, const std::string& id, std::size_t n) {
  fs::path dir = fs::path(target).parent_path();
  return (dir / (".cudnn-install-" + id + "-" + std::to_string(n) + ".tmp")).generic_string();
}

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm = util::utc_time(now);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace txn_paths

namespace {

Result<bool> exists(FileSystem& fs, const fs::path& path) {
  auto st = fs.stat(path);
  if (!st) return std::unexpected(st.error());
  return st->has_value();
}

Result<void> undo_one(FileSystem& fs, const fs::path& root, const JournalStep& s) {
  if (!s.temp.empty()) {
    auto temp = exists(fs, root / s.temp);
    if (!temp) return std::unexpected(temp.error());
    if (*temp)
      if (auto r = fs.remove(root / s.temp); !r) return r;
  }
  if (s.had_old()) {
    auto backup = exists(fs, root / s.backup);
    if (!backup) return std::unexpected(backup.error());
    if (*backup) return fs.rename(root / s.backup, root / s.target);  // restores the old file over the new one
    return {};                                                        // the old file never left
  }
  auto placed = exists(fs, root / s.target);
  if (!placed) return std::unexpected(placed.error());
  if (*placed) return fs.remove(root / s.target);  // it was absent before: anything there is ours
  return {};
}

// Removes a directory of plain files (a backup directory), if it exists.
Result<void> remove_flat_dir(FileSystem& fs, const fs::path& dir) {
  auto there = exists(fs, dir);
  if (!there || !*there) return there ? Result<void>() : std::unexpected(there.error());
  auto names = fs.list_dir(dir);
  if (!names) return std::unexpected(names.error());
  for (const auto& n : *names)
    if (auto r = fs.remove(dir / n); !r) return r;
  return fs.remove(dir);
}

std::optional<BeginRecord> committed_begin(FileSystem& fs, const fs::path& root, const std::string& id) {
  auto text = fs.read_file(txn_paths::history_file(root, id));
  if (!text) return std::nullopt;
  return parse_journal(*text).begin;
}

// Finishes an undo of committed transaction `id` (the journal holds "undo-begin <id>"). Removing
// the journal ends it; no "undo-commit" record is flushed first: a journal that a crash brings back
// names a transaction whose history file is durably gone, so recovery finds nothing left to undo.
Result<void> finish_rollback(FileSystem& fs, const fs::path& root, const std::string& id, EnvStore* env) {
  if (auto begin = committed_begin(fs, root, id)) {
    if (auto r = undo_steps(fs, root, *begin, env); !r) return r;
    if (auto r = remove_flat_dir(fs, root / txn_paths::backup_dir(id)); !r) return r;
    if (auto r = fs.remove(txn_paths::history_file(root, id)); !r) return r;
    if (auto r = fs.sync_dir(state_dir(root) / "history"); !r) return r;
  }
  return fs.remove(txn_paths::journal(root));
}

Result<std::vector<std::string>> history_ids(FileSystem& fs, const fs::path& root) {
  auto names = fs.list_dir(state_dir(root) / "history");
  if (!names) return std::vector<std::string>();
  std::vector<std::string> ids;
  for (const auto& n : *names)
    if (n.ends_with(".jsonl")) ids.push_back(n.substr(0, n.size() - 6));
  std::sort(ids.begin(), ids.end());
  return ids;
}

Result<void> prune_history(FileSystem& fs, const fs::path& root) {
  auto ids = history_ids(fs, root);
  if (!ids) return std::unexpected(ids.error());
  for (std::size_t i = 0; i + kKeptTransactions < ids->size(); ++i) {
    // History first: once it is gone the transaction can no longer be rolled back half-restored.
    if (auto r = fs.remove(txn_paths::history_file(root, (*ids)[i])); !r) return r;
    if (auto r = remove_flat_dir(fs, root / txn_paths::backup_dir((*ids)[i])); !r) return r;
    spdlog::info("pruned transaction {} (only the last {} are kept for --rollback)", (*ids)[i], kKeptTransactions);
  }
  return {};
}

}  // namespace

fs::path state_dir(const fs::path& root) { return root / kStateDirName; }
fs::path spool_dir(const fs::path& root) { return state_dir(root) / "spool"; }

bool has_pending_journal(const fs::path& root) {
  std::error_code ec;
  return fs::exists(txn_paths::journal(root), ec);
}

Result<void> undo_steps(FileSystem& fs, const fs::path& root, const BeginRecord& begin, EnvStore* env) {
  if (auto r = undo_env_edit(env, begin); !r) return r;  // the edit was made last, so it is undone first
  for (auto it = begin.steps.rbegin(); it != begin.steps.rend(); ++it)
    if (auto r = undo_one(fs, root, *it); !r) return r;
  for (auto it = begin.dirs_created.rbegin(); it != begin.dirs_created.rend(); ++it) {
    auto names = fs.list_dir(root / *it);
    if (names && names->empty())
      if (auto r = fs.remove(root / *it); !r) return r;
  }
  std::set<fs::path> dirs;
  for (const auto& s : begin.steps) dirs.insert((root / s.target).parent_path());
  for (const auto& d : dirs)
    if (auto there = exists(fs, d); there && *there)
      if (auto r = fs.sync_dir(d); !r) return r;
  return {};
}

Result<void> finish_undo(FileSystem& fs, const fs::path& root, const BeginRecord& begin, EnvStore* env) {
  if (auto r = undo_steps(fs, root, begin, env); !r) return r;
  return remove_flat_dir(fs, root / txn_paths::backup_dir(begin.id));
}

Result<void> file_committed(FileSystem& fs, const fs::path& root, const std::string& id) {
  if (auto r = fs.rename(txn_paths::journal(root), txn_paths::history_file(root, id)); !r) return r;
  if (auto r = fs.sync_dir(state_dir(root) / "history"); !r) return r;
  if (auto r = fs.sync_dir(state_dir(root)); !r) return r;
  return prune_history(fs, root);
}

Result<Recovery> recover(FileSystem& fs, const fs::path& root, EnvStore* env) {
  // Copies an interrupted run made before its "begin" record: never part of the tree.
  if (auto r = remove_spool(fs, spool_dir(root)); !r) return std::unexpected(r.error());
  auto there = exists(fs, txn_paths::journal(root));
  if (!there) return std::unexpected(there.error());
  if (!*there) return Recovery{};
  auto text = fs.read_file(txn_paths::journal(root));
  if (!text) return std::unexpected(text.error());
  JournalState st = parse_journal(*text);
  if (st.begin && st.committed) {
    if (auto r = file_committed(fs, root, st.begin->id); !r) return std::unexpected(r.error());
    return Recovery{Recovery::What::Completed, st.begin->id};
  }
  if (st.begin) {
    if (auto r = finish_undo(fs, root, *st.begin, env); !r) return std::unexpected(r.error());
    if (auto r = fs.remove(txn_paths::journal(root)); !r) return std::unexpected(r.error());
    return Recovery{Recovery::What::RolledBack, st.begin->id};
  }
  if (st.undo_of) {
    if (auto r = finish_rollback(fs, root, *st.undo_of, env); !r) return std::unexpected(r.error());
    return Recovery{Recovery::What::UndoFinished, *st.undo_of};
  }
  // No intact "begin": it is written and flushed before any change, so nothing was changed.
  if (auto r = fs.remove(txn_paths::journal(root)); !r) return std::unexpected(r.error());
  return Recovery{};
}

Result<std::vector<HistoryItem>> read_history(FileSystem& fs, const fs::path& root) {
  auto ids = history_ids(fs, root);
  if (!ids) return std::unexpected(ids.error());
  std::vector<HistoryItem> items;
  for (const auto& id : *ids) {
    auto begin = committed_begin(fs, root, id);
    if (!begin) continue;
    HistoryItem item{id,
                     begin->operation,
                     begin->archive,
                     begin->cudnn_version,
                     begin->time,
                     begin->steps.size(),
                     {},
                     begin->env_edit ? begin->env_entry : std::string()};
    for (const auto& s : begin->steps)
      if (fs::path(s.target).is_absolute()) item.outside_root.push_back(s.target);
    items.push_back(std::move(item));
  }
  return items;
}

Result<HistoryItem> rollback_last(FileSystem& fs, const fs::path& root, EnvStore* env) {
  auto items = read_history(fs, root);
  if (!items) return std::unexpected(items.error());
  if (items->empty())
    return fail(ErrorCode::NothingToUndo, "nothing to roll back: no committed transaction in " + root.string());
  HistoryItem last = items->back();
  if (auto r = fs.append_durable(txn_paths::journal(root), undo_begin_record(last.id)); !r) {
    (void)fs.remove(txn_paths::journal(root));  // a torn "undo-begin" means nothing; nothing was changed
    return std::unexpected(r.error());
  }
  auto r = fs.sync_dir(state_dir(root));
  if (r) r = finish_rollback(fs, root, last.id, env);
  if (!r)
    return fail(
        ErrorCode::Io,
        r.error().message +
            "\nThe rollback is journalled: fix the cause and run `cudnn-install --rollback` again to finish it.",
        r.error().subject);
  return last;
}

Result<std::vector<HistoryItem>> uninstall_all(FileSystem& fs, const fs::path& root, EnvStore* env) {
  std::vector<HistoryItem> undone;
  while (true) {
    auto items = read_history(fs, root);
    if (!items) return std::unexpected(items.error());
    if (items->empty()) return undone;
    auto item = rollback_last(fs, root, env);
    if (!item) return std::unexpected(item.error());
    undone.push_back(*item);
  }
}

}  // namespace cudnn_install
