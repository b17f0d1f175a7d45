// Stage 5: the transaction. A plan is applied so that a crash at any point leaves the toolkit
// as it was before or as it is after, never a mix (see "Transaction" in ARCHITECTURE.md).
//
//   <root>/.cudnn-install/lock            one run at a time (state_lock.hpp)
//   <root>/.cudnn-install/journal.jsonl   the transaction in progress (lib/src/txn_journal.hpp)
//   <root>/.cudnn-install/spool/          a tar.xz's files, copied while it is inspected (archive.hpp)
//   <root>/.cudnn-install/backup/<id>/    old files, moved there by rename
//   <root>/.cudnn-install/history/<id>.jsonl  committed transactions; <id> = <sequence>-<UTC time>-<PID>
//
// Transactions are ordered by the sequence number their ids begin with (one past the newest in
// history/), never by the clock, which can be set back between two runs.
#pragma once
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cudnn_install/archive.hpp"
#include "cudnn_install/env.hpp"
#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/state_dir.hpp"

namespace cudnn_install {

// Committed transactions whose backups are kept, so that --rollback can undo them (newest first).
inline constexpr std::size_t kKeptTransactions = 3;

struct Progress {
  std::uint64_t bytes_done = 0, bytes_total = 0;
  std::size_t files_done = 0, files_total = 0;
  std::string current;  // root-relative target being written
};
using ProgressFn = std::function<void(const Progress&)>;

// A file to replace that a running program has loaded (Windows): refuse, or move it aside into the
// backup (a rename works on a loaded DLL) so the program keeps running the old one until restarted.
enum class InUse { Refuse, RenameAside };

struct ApplyOptions {
  std::string operation = "install";  // recorded in the journal and shown by status
  std::string sha256;                 // of the archive, recorded in the journal
  ProgressFn progress;                // may be empty
  EnvStore* env = nullptr;            // where plan.env_edit is made (the registry); needed only when there is one
  InUse in_use = InUse::Refuse;
  // Looked at before the "begin" record, between files, between copy chunks and between renames:
  // a signal stops the install, which is rolled back (its temporaries removed) before returning
  // ErrorCode::Interrupted, Terminated or HungUp. nullptr: never interrupted.
  Interrupts* interrupts = nullptr;
  unsigned extract_threads = 0;  // zip entries inflated at once; 0: one per core, at most kMaxExtractThreads
  // The time recorded for people (in the id and the journal); empty: the system clock. Never used
  // for order, so tests can set it back.
  std::function<std::chrono::system_clock::time_point()> clock;
};

inline constexpr unsigned kMaxExtractThreads = 4;

struct TxnOutcome {
  std::string id;
  std::size_t files_written = 0, files_removed = 0, files_unchanged = 0;
  std::uint64_t bytes_written = 0;
  // Each file put in place (root-relative target): its identity when it was written under its
  // temporary name, and the CRC-32 of what was written. stamp_files uses it instead of reading.
  std::map<std::string, FileStamp> written;
};

// Applies the plan as one transaction. On failure the tree is restored before returning; the
// error says which file and why (ErrorCode::Io), or that restoring failed too.
Result<TxnOutcome> apply_plan(FileSystem& fs, const std::filesystem::path& root, const ArchiveInfo& archive,
                              const Plan& plan, const ApplyOptions& options);

struct Recovery {
  enum class What { Nothing, RolledBack, Completed, UndoFinished };
  What what = What::Nothing;
  std::string id;
  // Debris removed, each root-relative with why: a spool, and temporaries of the state files (stamps.json,
  // archives.json: "<name>.tmp-<PID>") whose process is no longer running.
  std::vector<std::string> cleaned;
};
// Finishes whatever a crashed run left: an uncommitted install is rolled back, a committed one
// is filed in history, an interrupted --rollback is completed, and debris a killed run left
// behind is removed (Recovery::cleaned). Every command that may write runs this first.
// `env` is needed only when a transaction changed the registry PATH (Windows).
Result<Recovery> recover(FileSystem& fs, const std::filesystem::path& root, EnvStore* env = nullptr);

struct HistoryItem {
  std::string id, operation, archive, cudnn_version, time;
  std::size_t files = 0;
  std::vector<std::string> outside_root;  // absolute targets (the loader configuration)
  std::string path_entry;                 // the directory it put on PATH (Windows), if any
  std::vector<std::string> targets;       // the others, root-relative: what undoing it removes or restores
};
// Committed transactions, oldest first.
Result<std::vector<HistoryItem>> read_history(FileSystem& fs, const std::filesystem::path& root);

// Undoes the newest committed transaction byte for byte (ErrorCode::NothingToUndo when none).
// `interrupts` is looked at between its steps (Checkpoint::Undo) but never stops it: a rollback
// left half-way would leave the toolkit a mix of two installs. The caller asks afterwards.
Result<HistoryItem> rollback_last(FileSystem& fs, const std::filesystem::path& root, EnvStore* env = nullptr,
                                  Interrupts* interrupts = nullptr);

// What uninstall_all did: the transactions undone (newest first), and, when a signal stopped it
// before the next one (Checkpoint::NextUndo), which signal and how many committed ones remain.
struct Uninstalled {
  std::vector<HistoryItem> undone;
  Interruption stopped_by = Interruption::None;
  std::size_t remaining = 0;
};
// Undoes every committed transaction, newest first: what cudnn-install installed is removed and
// what it replaced is restored. Each undo is journalled like --rollback, and each one that has begun
// is finished; a signal stops the loop before the next one.
Result<Uninstalled> uninstall_all(FileSystem& fs, const std::filesystem::path& root, EnvStore* env = nullptr,
                                  Interrupts* interrupts = nullptr);

bool has_pending_journal(const std::filesystem::path& root);
// Whether recover() would remove debris (a spool, a state file's temporary of a dead process).
bool has_state_debris(const std::filesystem::path& root);

}  // namespace cudnn_install
