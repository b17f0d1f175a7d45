// Undo, recovery, rollback and history. Undo looks at the disk rather than at progress records,
// so it is correct whatever point a crash interrupted, and running it twice changes nothing.
#include <spdlog/spdlog.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <set>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/txn.hpp"
#include "txn_paths.hpp"
#include "txn_steps.hpp"
#include "txn_validate.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

namespace txn_paths {

fs::path journal(const fs::path& root) { return state_dir(root) / "journal.jsonl"; }
fs::path history_file(const fs::path& root, const std::string& id) {
  return state_dir(root) / "history" / (id + ".jsonl");
}
std::string backup_dir(const std::string& id) { return std::string(kStateDirName) + "/backup/" + id; }
std::string backup_for(const std::string& id, std::size_t n) { return backup_dir(id) + "/" + std::to_string(n); }

std::string backup_for_target(const std::string& target, const std::string& id, std::size_t n) {
  if (!fs::path(target).is_absolute()) return backup_for(id, n);
  fs::path dir = fs::path(target).parent_path();
  return (dir / (".cudnn-install-" + id + "-" + std::to_string(n) + ".bak")).generic_string();
}

std::string temp_for(const std::string& target, const std::string& id, std::size_t n) {
  fs::path dir = fs::path(target).parent_path();
  return (dir / (".cudnn-install-" + id + "-" + std::to_string(n) + ".tmp")).generic_string();
}

}  // namespace txn_paths

namespace {

Result<bool> exists(FileSystem& fs, const fs::path& path) {
  TRY_ASSIGN(auto st, fs.stat(path));
  return st.has_value();
}

// Whether two names are one regular file: a crash between the link and the unlink of a NoReplace
// rename's fallback (filesystem_posix.cpp) leaves the new file under both.
bool same_file(FileSystem& fs, const fs::path& a, const fs::path& b) {
  auto sa = fs.stat(a), sb = fs.stat(b);
  if (!sa || !*sa || !sb || !*sb || (*sa)->type != EntryType::File || (*sb)->type != EntryType::File) return false;
  auto ia = fs.identity(a), ib = fs.identity(b);
  return ia && ib && ia->device == ib->device && ia->inode == ib->inode;
}

Result<void> undo_one(FileSystem& fs, const fs::path& root, const JournalStep& s, SwapPhase phase) {
  // A temporary still there never reached its target (the swap is a rename, and a create's rename
  // never replaces): whatever is at the target is not this transaction's, unless it is the very file.
  bool unplaced = false, linked = false;
  if (!s.temp.empty()) {
    TRY_ASSIGN(unplaced, exists(fs, root / s.temp));
    linked = unplaced && same_file(fs, root / s.temp, root / s.target);
    if (unplaced) TRY(fs.remove(root / s.temp));
  }
  if (s.had_old()) {
    TRY_ASSIGN(auto backup, exists(fs, root / s.backup));
    // Restores the old file over the new one; over nothing when the new one was never placed.
    auto mode = unplaced && !linked ? RenameMode::NoReplace : RenameMode::Replace;
    if (backup) return fs.rename(root / s.backup, root / s.target, mode);
    return {};  // the old file never left
  }
  if (unplaced && !linked) return {};
  if (phase == SwapPhase::NotStarted) return {};  // no target was touched: a file there is another program's
  TRY_ASSIGN(auto placed, exists(fs, root / s.target));
  if (placed) return fs.remove(root / s.target);  // absent before, and our file was moved there
  return {};
}

// Removes a directory of plain files (a backup directory), if it exists. A symlink there is refused:
// listing through it would remove the files of another directory.
Result<void> remove_flat_dir(FileSystem& fs, const fs::path& dir) {
  TRY_ASSIGN(bool there, state_subdir(fs, dir));
  if (!there) return {};
  TRY_ASSIGN(auto names, fs.list_dir(dir));
  for (const auto& n : names) TRY(fs.remove(dir / n));
  return fs.remove(dir);
}

// The records of committed transaction `id`, checked before anything acts on them; nullopt when
// there are none (a finished rollback removed them).
Result<std::optional<JournalState>> committed_journal(FileSystem& fs, const fs::path& root, const std::string& id) {
  fs::path file = txn_paths::history_file(root, id);
  TRY_ASSIGN(bool there, state_file(fs, file));
  if (!there) return std::optional<JournalState>();
  TRY_ASSIGN(auto text, fs.read_file(file));
  JournalState state = parse_journal(text);
  const auto& begin = state.begin;
  if (!begin || !state.damage.empty())
    return fail(ErrorCode::Conflict,
                "the history record '" + file.string() + "' is damaged (" +
                    (begin ? state.damage : std::string("no intact begin record")) +
                    "), so the transaction it names cannot be undone safely: "
                    "nothing was changed. Inspect it; move it away to go on without it.",
                file.string());
  TRY(check_begin(*begin, file));
  if (begin->id != id)
    return fail(ErrorCode::Conflict,
                "the history record '" + file.string() + "' names transaction '" + begin->id +
                    "', not its own: nothing was changed. Inspect it; move it away to go on without it.",
                file.string());
  return state;
}

Result<std::optional<BeginRecord>> committed_begin(FileSystem& fs, const fs::path& root, const std::string& id) {
  TRY_ASSIGN(auto state, committed_journal(fs, root, id));
  return state ? std::optional(std::move(state->begin)) : std::nullopt;
}

// Finishes an undo of committed transaction `id` (the journal holds "undo-begin <id>"). Removing
// the journal ends it; no "undo-commit" record is flushed first: a journal that a crash brings back
// names a transaction whose history file is durably gone, so recovery finds nothing left to undo.
Result<void> finish_rollback(FileSystem& fs, const fs::path& root, const std::string& id, EnvStore* env,
                             Interrupts* seen = nullptr) {
  if (!valid_txn_id(id))
    return fail(ErrorCode::Conflict,
                "the journal '" + txn_paths::journal(root).string() + "' asks to undo '" + id +
                    "', which is not a transaction id: nothing was changed. Inspect it; remove it to go on.",
                txn_paths::journal(root).string());
  TRY_ASSIGN(auto begin, committed_begin(fs, root, id));
  if (begin) {
    TRY(undo_steps(fs, root, *begin, env, SwapPhase::MayHaveStarted, seen));
    TRY(remove_flat_dir(fs, root / txn_paths::backup_dir(id)));
    TRY(fs.remove(txn_paths::history_file(root, id)));
    TRY(fs.sync_dir(state_dir(root) / "history"));
  }
  return fs.remove(txn_paths::journal(root));
}

// The sequence number an id begins with ("000042-..."); 0 for the time-based ids of earlier builds,
// which are older than every numbered one.
std::uint64_t sequence_of(const std::string& id) {
  std::size_t dash = id.find('-');
  if (dash == std::string::npos || dash == 0 || dash > 18) return 0;
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < dash; ++i) {
    if (id[i] < '0' || id[i] > '9') return 0;
    n = n * 10 + static_cast<std::uint64_t>(id[i] - '0');
  }
  return n;
}

// Oldest first, by sequence number; ids without one (earlier builds) by their time, before the rest.
Result<std::vector<std::string>> history_ids(FileSystem& fs, const fs::path& root) {
  TRY_ASSIGN(bool there, state_subdir(fs, state_dir(root) / "history"));
  if (!there) return std::vector<std::string>();
  TRY_ASSIGN(auto names, fs.list_dir(state_dir(root) / "history"));
  std::vector<std::string> ids;
  for (const auto& n : names) {
    if (!n.ends_with(".jsonl")) continue;
    std::string id = n.substr(0, n.size() - 6);
    if (!valid_txn_id(id))
      return fail(ErrorCode::Conflict,
                  "'" + (state_dir(root) / "history" / n).string() +
                      "' is not named after a transaction id, so cudnn-install did not write it: nothing was "
                      "changed. Inspect it; move it away to go on.",
                  (state_dir(root) / "history" / n).string());
    ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end(), [](const std::string& a, const std::string& b) {
    return std::pair(sequence_of(a), a) < std::pair(sequence_of(b), b);
  });
  return ids;
}

// The backups a transaction kept beside targets outside the toolkit (the loader configuration).
Result<void> remove_outside_backups(FileSystem& fs, const BeginRecord& begin) {
  for (const auto& s : begin.steps)
    if (fs::path(s.backup).is_absolute()) {
      TRY_ASSIGN(auto there, exists(fs, s.backup));
      if (there) TRY(fs.remove(s.backup));
    }
  return {};
}

Result<void> prune_history(FileSystem& fs, const fs::path& root) {
  TRY_ASSIGN(auto ids, history_ids(fs, root));
  for (std::size_t i = 0; i + kKeptTransactions < ids.size(); ++i) {
    TRY_ASSIGN(auto begin, committed_begin(fs, root, ids[i]));
    if (begin) TRY(remove_outside_backups(fs, *begin));
    // History first: once it is gone the transaction can no longer be rolled back half-restored.
    TRY(fs.remove(txn_paths::history_file(root, (ids)[i])));
    TRY(remove_flat_dir(fs, root / txn_paths::backup_dir((ids)[i])));
    spdlog::info("pruned transaction {} (only the last {} are kept for --rollback)", (ids)[i], kKeptTransactions);
  }
  return {};
}

}  // namespace

bool has_pending_journal(const fs::path& root) {
  std::error_code ec;  // a symlink counts (recovery refuses it): never followed
  return fs::symlink_status(txn_paths::journal(root), ec).type() != fs::file_type::not_found && !ec;
}

// Every step is tried, newest first, even after one fails: a step that cannot be inspected or
// reversed (a disk error, a permission, a read-only mount) must not leave the others half-done. The
// failures are reported one by one; the journal keeps the transaction, so the next run (or
// --rollback) finishes it once the cause is fixed, and what was undone already is not touched again.
Result<void> undo_steps(FileSystem& fs, const fs::path& root, const BeginRecord& begin, EnvStore* env, SwapPhase phase,
                        Interrupts* seen) {
  std::vector<std::string> failed;
  if (auto r = undo_env_edit(env, begin); !r) failed.push_back(r.error().message);  // made last: undone first
  for (auto it = begin.steps.rbegin(); it != begin.steps.rend(); ++it) {
    if (auto r = undo_one(fs, root, *it, phase); !r) failed.push_back("'" + it->target + "': " + r.error().message);
    if (seen) (void)seen->raised(Checkpoint::Undo);  // looked at (the test hook pauses here), never obeyed
  }
  for (auto it = begin.dirs_created.rbegin(); it != begin.dirs_created.rend(); ++it) {
    auto names = fs.list_dir(root / *it);
    if (names && names->empty())
      if (auto r = fs.remove(root / *it); !r) failed.push_back("'" + *it + "/': " + r.error().message);
  }
  std::set<fs::path> dirs;
  for (const auto& s : begin.steps) dirs.insert((root / s.target).parent_path());
  for (const auto& d : dirs)
    if (auto there = exists(fs, d); there && *there)
      if (auto r = fs.sync_dir(d); !r) failed.push_back(r.error().message);
  if (failed.empty()) return {};
  std::string message = "could not undo " + std::to_string(failed.size()) + " step(s) of transaction " + begin.id +
                        " (every other step was undone):";
  for (const auto& f : failed) message += "\n  - " + f;
  return fail(ErrorCode::Io, message, failed.front());
}

Result<void> finish_undo(FileSystem& fs, const fs::path& root, const BeginRecord& begin, EnvStore* env,
                         SwapPhase phase) {
  TRY(undo_steps(fs, root, begin, env, phase));
  return remove_flat_dir(fs, root / txn_paths::backup_dir(begin.id));
}

Result<std::uint64_t> next_sequence(FileSystem& fs, const fs::path& root) {
  TRY_ASSIGN(auto ids, history_ids(fs, root));
  return ids.empty() ? 1 : sequence_of(ids.back()) + 1;
}

Result<void> file_committed(FileSystem& fs, const fs::path& root, const std::string& id) {
  TRY(fs.rename(txn_paths::journal(root), txn_paths::history_file(root, id), RenameMode::Replace));
  TRY(fs.sync_dir(state_dir(root) / "history"));
  TRY(fs.sync_dir(state_dir(root)));
  return prune_history(fs, root);
}

namespace {

std::unexpected<Error> damaged_journal(const fs::path& root, const std::string& what, const std::string& id) {
  std::string backups =
      id.empty() ? ""
                 : " (and " + (root / txn_paths::backup_dir(id)).string() + "/, which holds the files it replaced)";
  return fail(ErrorCode::Conflict,
              "the journal '" + txn_paths::journal(root).string() + "' is damaged: " + what +
                  ". A crash tears only the last record, so this is not one, and cudnn-install does not guess what "
                  "the transaction did: nothing was changed. Inspect the journal" +
                  backups + "; when the toolkit's files are as you want them, move the journal away to go on.",
              txn_paths::journal(root).string());
}

// The id a torn "begin" record still shows, when its text got that far. (Its keys are written in
// order, "archive" first; a torn "undo-begin" starts with "id" and changed nothing.)
std::string id_in_torn_text(const std::string& text) {
  if (text.size() < 9 || text.compare(9, 11, "{\"archive\":") != 0) return {};
  const std::string key = "\"id\":\"";
  std::size_t at = text.find(key);
  if (at == std::string::npos) return {};
  std::size_t end = text.find('"', at + key.size());
  std::string id = end == std::string::npos ? "" : text.substr(at + key.size(), end - at - key.size());
  return valid_txn_id(id) ? id : std::string();
}

// No intact "begin": it is flushed before any change, so nothing was changed, unless the
// transaction's backup directory (made first, after that flush) exists: then the record was
// damaged after it was durable.
Result<void> check_torn_begin(FileSystem& fs, const fs::path& root, const std::string& text) {
  std::string id = id_in_torn_text(text);
  if (id.empty()) return {};
  TRY_ASSIGN(bool started, state_subdir(fs, root / txn_paths::backup_dir(id)));
  if (started)
    return damaged_journal(
        root, "its \"begin\" record is broken, yet transaction " + id + " had started (its backup directory exists)",
        id);
  return {};
}

}  // namespace

namespace {

Result<Recovery> recover_journal(FileSystem& fs, const fs::path& root, EnvStore* env) {
  TRY_ASSIGN(bool there, state_file(fs, txn_paths::journal(root)));
  if (!there) return Recovery{};
  TRY_ASSIGN(auto text, fs.read_file(txn_paths::journal(root)));
  JournalState st = parse_journal(text);
  if (st.begin) TRY(check_begin(*st.begin, txn_paths::journal(root)));
  if (!st.damage.empty()) return damaged_journal(root, st.damage, st.begin ? st.begin->id : id_in_torn_text(text));
  if (st.begin && st.committed) {
    TRY(file_committed(fs, root, st.begin->id));
    return Recovery{Recovery::What::Completed, st.begin->id, {}};
  }
  if (st.begin) {
    TRY(finish_undo(fs, root, *st.begin, env, st.staged ? SwapPhase::MayHaveStarted : SwapPhase::NotStarted));
    TRY(fs.remove(txn_paths::journal(root)));
    return Recovery{Recovery::What::RolledBack, st.begin->id, {}};
  }
  if (st.undo_of) {
    TRY(finish_rollback(fs, root, *st.undo_of, env));
    return Recovery{Recovery::What::UndoFinished, *st.undo_of, {}};
  }
  TRY(check_torn_begin(fs, root, text));
  TRY(fs.remove(txn_paths::journal(root)));  // a torn "begin": nothing was changed
  return Recovery{};
}

}  // namespace

Result<Recovery> recover(FileSystem& fs, const fs::path& root, EnvStore* env) {
  // Copies an interrupted run made before its "begin" record (never part of the tree), and the
  // state files' temporaries of runs killed while writing them.
  TRY_ASSIGN(auto cleaned, remove_state_debris(fs, root));
  TRY_ASSIGN(auto recovery, recover_journal(fs, root, env));
  recovery.cleaned = std::move(cleaned);
  return recovery;
}

Result<std::vector<HistoryItem>> read_history(FileSystem& fs, const fs::path& root) {
  TRY_ASSIGN(auto ids, history_ids(fs, root));
  std::vector<HistoryItem> items;
  for (const auto& id : ids) {
    TRY_ASSIGN(auto begin, committed_begin(fs, root, id));
    if (!begin) continue;
    HistoryItem item{id,
                     begin->operation,
                     begin->archive,
                     begin->cudnn_version,
                     begin->time,
                     begin->steps.size(),
                     {},
                     begin->env_edit ? begin->env_entry : std::string(),
                     {}};
    for (const auto& s : begin->steps)
      (fs::path(s.target).is_absolute() ? item.outside_root : item.targets).push_back(s.target);
    items.push_back(std::move(item));
  }
  return items;
}

namespace {

// Every old file the transaction replaced or removed must still be in its backup before the undo
// starts: without it the undo would delete the installed file and put nothing back.
Result<void> check_backups(FileSystem& fs, const fs::path& root, const BeginRecord& begin) {
  const std::string& id = begin.id;
  std::string missing;
  std::size_t count = 0;
  for (const auto& s : begin.steps) {
    if (!s.had_old()) continue;
    auto there = exists(fs, root / s.backup);
    if (!there)
      return fail(there.error().code,
                  "cannot tell whether the backup " + s.backup + " (the old " + s.target +
                      ") is there: " + there.error().message + "\nNothing was changed. Fix the cause and run again.",
                  there.error().subject);
    if (!*there && ++count <= 5) missing += "\n  " + s.backup + " (the old " + s.target + ")";
  }
  if (count == 0) return {};
  return fail(ErrorCode::Conflict,
              std::to_string(count) + " backup(s) of transaction " + id +
                  " are missing, so rolling it back would not restore what it replaced:" + missing +
                  (count > 5 ? "\n  ..." : "") +
                  "\nNothing was changed. Put the backups back to roll it back, or move " +
                  txn_paths::history_file(root, id).string() + " away to keep the toolkit as it is.",
              (root / txn_paths::backup_dir(id)).string());
}

// How `path` differs from what a transaction placed there (or, for a target it removed, that
// something is there again); empty when it does not. The size and the stamps spare most reads.
Result<std::string> change_since(FileSystem& fs, const fs::path& path, const std::string& target,
                                 const std::optional<PlacedFile>& placed, const FileStamps& stamps) {
  TRY_ASSIGN(auto now, fs.stat(path));
  if (!now) return std::string();  // gone: the undo has nothing there to lose
  if (!placed) return std::string("something was put there after the transaction removed what was there");
  if (now->type != placed->type) return std::string("it is not what the transaction put there (another kind of file)");
  if (placed->type == EntryType::Symlink)
    return now->link_target == placed->link_target ? "" : "it points to '" + now->link_target + "' now";
  if (now->size != placed->size)
    return "it holds other bytes now: " + std::to_string(now->size) + " bytes instead of " +
           std::to_string(placed->size);
  std::optional<std::uint32_t> crc;
  if (auto identity = fs.identity(path)) crc = stamps.crc_if_unchanged(target, *identity);
  if (!crc) {
    uLong sum = crc32(0, nullptr, 0);
    TRY(fs.read_chunks(path, [&sum](std::string_view chunk) {
      sum = crc32(sum, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(chunk.size()));
    }));
    crc = static_cast<std::uint32_t>(sum);
  }
  return *crc == placed->crc32 ? "" : "it holds other bytes now";
}

// Undoing a transaction deletes or overwrites what is at its targets, so each must still hold what
// the transaction left there (or nothing): a file another program or a person changed or put there
// since would otherwise be lost. Transactions of earlier builds recorded nothing to compare with.
Result<void> check_still_as_placed(FileSystem& fs, const fs::path& root, const JournalState& journal) {
  if (journal.placed.empty() || !journal.begin) return {};
  const std::string& id = journal.begin->id;
  FileStamps stamps = read_file_stamps(fs, root);
  std::vector<std::string> changed;
  for (const auto& s : journal.begin->steps) {
    auto placed = journal.placed.find(s.target);
    if (s.kind == JournalStep::Kind::Place && placed == journal.placed.end()) continue;  // its bytes were not known
    std::optional<PlacedFile> what;
    if (placed != journal.placed.end()) what = placed->second;
    fs::path path = fs::path(s.target).is_absolute() ? fs::path(s.target) : root / s.target;
    TRY_ASSIGN(auto change, change_since(fs, path, s.target, what, stamps));
    if (!change.empty()) changed.push_back(s.target + " (" + change + ")");
  }
  if (changed.empty()) return {};
  std::string list;
  for (std::size_t i = 0; i < changed.size() && i < 10; ++i) list += "\n  " + changed[i];
  if (changed.size() > 10) list += "\n  ... and " + std::to_string(changed.size() - 10) + " more";
  return fail(ErrorCode::Conflict,
              std::to_string(changed.size()) + " file(s) that transaction " + id +
                  " installed or removed were changed after it (by another program or by hand), and undoing it "
                  "would delete or overwrite them:" +
                  list +
                  "\nNothing was changed. To undo the transaction anyway, move those files out of the toolkit "
                  "(or put back what it installed) and run the command again; to keep them, leave it installed.",
              changed.front());
}

// The error of the transaction uninstall stopped at, after it had undone newer ones: its message
// ("nothing was changed") is about that transaction alone, so what was undone before is said first.
std::unexpected<Error> undone_before(const Uninstalled& done, const Error& error) {
  std::string ids;
  for (const auto& u : done.undone) ids += (ids.empty() ? "" : ", ") + u.id;
  return fail(error.code,
              "uninstall undid " + std::to_string(done.undone.size()) + " transaction(s) first, each one whole (" +
                  ids + "), then stopped at the next one (" + std::to_string(done.remaining) +
                  " remain): " + error.message,
              error.subject);
}

}  // namespace

Result<HistoryItem> rollback_last(FileSystem& fs, const fs::path& root, EnvStore* env, Interrupts* interrupts) {
  TRY_ASSIGN(auto items, read_history(fs, root));
  if (items.empty())
    return fail(ErrorCode::NothingToUndo, "nothing to roll back: no committed transaction in " + root.string());
  HistoryItem last = items.back();
  TRY_ASSIGN(auto journal, committed_journal(fs, root, last.id));  // read once for both checks
  if (journal && journal->begin) {                                 // a committed journal has its begin record
    TRY(check_backups(fs, root, *journal->begin));
    TRY(check_still_as_placed(fs, root, *journal));
  }
  if (auto r = fs.append_durable(txn_paths::journal(root), undo_begin_record(last.id)); !r) {
    (void)fs.remove(txn_paths::journal(root));  // a torn "undo-begin" means nothing; nothing was changed
    return std::unexpected(r.error());
  }
  auto r = fs.sync_dir(state_dir(root));
  if (r) r = finish_rollback(fs, root, last.id, env, interrupts);
  if (!r)
    return fail(ErrorCode::Io,
                r.error().message + "\nThe rollback is journalled: fix the cause and roll back again to finish it.",
                r.error().subject);
  return last;
}

Result<Uninstalled> uninstall_all(FileSystem& fs, const fs::path& root, EnvStore* env, Interrupts* interrupts) {
  Uninstalled done;
  while (true) {
    TRY_ASSIGN(auto items, read_history(fs, root));
    done.remaining = items.size();
    if (items.empty()) return done;
    // Between two undos each transaction is either whole or gone: the one place to stop.
    done.stopped_by = interrupts ? interrupts->raised(Checkpoint::NextUndo) : Interruption::None;
    if (done.stopped_by != Interruption::None) return done;
    auto item = rollback_last(fs, root, env, interrupts);
    if (!item && !done.undone.empty()) return undone_before(done, item.error());
    if (!item) return std::unexpected(item.error());
    done.undone.push_back(std::move(*item));
  }
}

}  // namespace cudnn_install
