// The steps of a transaction that apply (txn_apply.cpp), undo and recovery (txn_undo.cpp) share.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "cudnn_install/env.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/interrupt.hpp"
#include "txn_journal.hpp"

namespace cudnn_install {

// Whether the swap (renames into targets, after the "staged" record) may have begun. Before it, no
// target was touched, so undo leaves every target alone: a file there now is another program's.
enum class SwapPhase { NotStarted, MayHaveStarted };

// Undoes the steps of one transaction, newest first. Idempotent: it looks at what is on disk,
// so running it again after a crash half-way through finishes the job.
// The PATH value is put back when it still is what the transaction wrote. `seen` (--rollback's
// signals) is looked at between steps (Checkpoint::Undo) and never obeyed: the undo always finishes.
Result<void> undo_steps(FileSystem& fs, const std::filesystem::path& root, const BeginRecord& begin, EnvStore* env,
                        SwapPhase phase = SwapPhase::MayHaveStarted, Interrupts* seen = nullptr);
// Shared by apply (automatic rollback) and recovery: undo the steps, remove the empty
// directories the transaction created and its backup directory.
Result<void> finish_undo(FileSystem& fs, const std::filesystem::path& root, const BeginRecord& begin, EnvStore* env,
                         SwapPhase phase = SwapPhase::MayHaveStarted);
// The registry half of a transaction (txn_env.cpp): make the edit, and put the old value back
// when the value is still the one the edit wrote (so undoing twice changes nothing).
Result<void> apply_env_edit(EnvStore* env, const EnvEdit& edit);
Result<void> undo_env_edit(EnvStore* env, const BeginRecord& begin);
// The sequence number of the next transaction: one past the newest in history/ (ids of builds
// before sequence numbers count as 0, older than any numbered one).
Result<std::uint64_t> next_sequence(FileSystem& fs, const std::filesystem::path& root);
// Removes the spool and the state files' temporaries of dead processes (txn_debris.cpp); returns
// what it removed, root-relative, with why.
Result<std::vector<std::string>> remove_state_debris(FileSystem& fs, const std::filesystem::path& root);
// Moves a committed journal into history/ and prunes transactions beyond kKeptTransactions.
Result<void> file_committed(FileSystem& fs, const std::filesystem::path& root, const std::string& id);

}  // namespace cudnn_install
