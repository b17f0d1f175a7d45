// `cudnn-install uninstall` as library operations (change.hpp says how a change of an installed
// toolkit goes); the CLI adds the prompt and prints the results.
//   undo every committed transaction, newest first, each one whole (uninstall_all, txn.hpp);
//   then the cuDNN files cudnn-install did not install: left in place, or (--force) removed in a
//   transaction of their own, so that --rollback restores them.
#pragma once
#include <map>
#include <optional>
#include <string>

#include "cudnn_install/change.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/session.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install {

// What to do with the cuDNN files cudnn-install did not install (--force: remove them).
enum class OthersFiles { Leave, Remove };

// NothingToUndo when the toolkit has neither a transaction of this tool nor a cuDNN file.
Result<void> check_something_to_uninstall(FileSystem& fs, const Toolkit& toolkit);

// The whole uninstall as a ChangeOp (what a preview runs).
ChangeOp uninstall_change(const Toolkit& toolkit, OthersFiles others);

// --dry-run: writes nothing; the error is where the real run would stop.
Result<ChangePreview> preview_uninstall(FileSystem& real, EnvStore* env, const Toolkit& toolkit, OthersFiles others);

struct UninstallResult {
  std::vector<HistoryItem> undone;  // newest first
  // A signal that came while a transaction was undone: that one was finished, the rest
  // (`remaining` transactions, and --force's removal) was not started.
  Interruption stopped_by = Interruption::None;
  std::size_t remaining = 0;
  std::map<std::string, ExistingFile> left;  // cuDNN files it did not install, left in place
  std::optional<TxnOutcome> removed;         // --force: their removal
  std::optional<Error> removal_failed;       // --force: why they are still there (the undone stay undone)
};
// The session open on the toolkit (lock held, recovery done).
Result<UninstallResult> uninstall(Session& session, const Toolkit& toolkit, OthersFiles others,
                                  const ChangeHooks& hooks);

}  // namespace cudnn_install
