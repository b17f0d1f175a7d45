// --rollback (rollback.hpp): the newest committed transaction undone, after the caller's hooks.
#include "cudnn_install/rollback.hpp"

#include "base/try.hpp"

namespace cudnn_install {

ChangeOp rollback_change(const std::filesystem::path& root, const std::shared_ptr<HistoryItem>& undone) {
  return [root, undone](FileSystem& fs, EnvStore* env) -> Result<ChangeSummary> {
    TRY_ASSIGN(auto item, rollback_last(fs, root, env));
    if (undone) *undone = item;
    ChangeSummary s;
    s.headline.push_back("roll back transaction " + item.id + " (" + item.operation + " of cuDNN " +
                         item.cudnn_version + " from " + item.archive + ", " + item.time + "):");
    if (!item.outside_root.empty()) s.after.push_back("then run ldconfig (the loader configuration changes)");
    return s;
  };
}

Result<RollbackPreview> preview_rollback(FileSystem& real, EnvStore* env, const Toolkit& toolkit) {
  auto undone = std::make_shared<HistoryItem>();
  TRY_ASSIGN(auto change, dry_run_change(real, env, toolkit.root, rollback_change(toolkit.root, undone),
                                         dirs_outside_real_root_of_undo(real, toolkit.root, UndoScope::Newest)));
  return RollbackPreview{std::move(change), *undone};
}

Result<RolledBack> rollback(Session& session, const Toolkit& toolkit, const ChangeHooks& hooks) {
  RolledBack result;
  result.recovered = session.recovered;
  if (session.recovered.what == Recovery::What::RolledBack || session.recovered.what == Recovery::What::UndoFinished)
    return result;
  TRY_ASSIGN(auto outside, dirs_outside_real_root_of_undo(*session.fs, toolkit.root, UndoScope::Newest));
  TRY(approve_change(session, toolkit.root, rollback_change(toolkit.root), outside, hooks));
  Interrupts* interrupts = session.interrupts.get();
  if (auto go = stop_if_interrupted(interrupts, Checkpoint::NextUndo); !go)
    return fail(go.error().code, go.error().message + ": nothing was changed.");
  TRY_ASSIGN(result.undone, rollback_last(*session.fs, toolkit.root, session.env.get(), interrupts));
  result.late_signal = interrupts ? interrupts->raised(Checkpoint::NextUndo) : Interruption::None;
  return result;
}

}  // namespace cudnn_install
