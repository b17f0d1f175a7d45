// `cudnn-install --rollback` as library operations: undo the newest committed transaction, byte
// for byte (change.hpp says how a change of an installed toolkit goes). The CLI prints the results.
#pragma once
#include <filesystem>
#include <memory>
#include <optional>

#include "cudnn_install/change.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/session.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install {

// The rollback as a ChangeOp; `undone`, when given, gets the transaction it undid (a dry run names it).
ChangeOp rollback_change(const std::filesystem::path& root, const std::shared_ptr<HistoryItem>& undone = nullptr);

struct RollbackPreview {
  ChangePreview change;
  HistoryItem undone;  // the transaction the real run would undo
};
// --dry-run: writes nothing; the error is where the real run would stop.
Result<RollbackPreview> preview_rollback(FileSystem& real, EnvStore* env, const Toolkit& toolkit);

struct RolledBack {
  // nullopt: opening the session just undid (or finished undoing) an interrupted install or
  // rollback, the newest change: that is the one undo asked for (`recovered` says which), so that
  // one --rollback never undoes two transactions.
  std::optional<HistoryItem> undone;
  Recovery recovered;
  // A signal that came while the transaction was undone: the undo was finished first.
  Interruption late_signal = Interruption::None;
};
// The session open on the toolkit (lock held, recovery done). A signal before the undo starts
// refuses it (ErrorCode::Interrupted...: nothing was changed).
Result<RolledBack> rollback(Session& session, const Toolkit& toolkit, const ChangeHooks& hooks);

}  // namespace cudnn_install
