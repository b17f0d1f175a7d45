// uninstall (uninstall.hpp): every committed transaction undone, then the cuDNN files this tool
// did not install left in place or (--force) removed in a transaction of their own.
#include "cudnn_install/uninstall.hpp"

#include "base/try.hpp"

namespace cudnn_install {
namespace {

// A signal (`interrupts`) rolls this transaction back, as it does an install.
Result<TxnOutcome> remove_found_in_place(FileSystem& fs, const Toolkit& toolkit,
                                         const std::map<std::string, ExistingFile>& found, Interrupts* interrupts) {
  ApplyOptions options;
  options.operation = "uninstall";
  options.interrupts = interrupts;
  return apply_plan(fs, toolkit.root, ArchiveInfo{}, removal_plan(toolkit, found), options);
}

// Where the files uninstall removes or restores really are: the directories outside the toolkit's
// real path of every transaction it undoes, and (--force) of the files it removes in place.
Result<std::vector<OutsideDir>> uninstall_outside(FileSystem& fs, const Toolkit& toolkit, OthersFiles others) {
  return dirs_outside_real_root_of_undo(
      fs, toolkit.root, UndoScope::All,
      others == OthersFiles::Remove ? removal_plan(toolkit, cudnn_files_in(fs, toolkit)) : Plan{});
}

ChangeSummary summary_of(const std::vector<HistoryItem>& undone) {
  ChangeSummary s;
  bool loader = false;
  for (const auto& u : undone) {
    s.headline.push_back("undo " + u.operation + " of cuDNN " + u.cudnn_version + " from " + u.archive + " (" + u.id +
                         ")");
    loader |= !u.outside_root.empty();
  }
  if (loader) s.after.push_back("then run ldconfig (the loader configuration changes)");
  return s;
}

}  // namespace

Result<void> check_something_to_uninstall(FileSystem& fs, const Toolkit& toolkit) {
  TRY_ASSIGN(auto history, read_history(fs, toolkit.root));
  if (history.empty() && cudnn_files_in(fs, toolkit).empty())
    return fail(ErrorCode::NothingToUndo, "there is no cuDNN in " + toolkit.root.string());
  return {};
}

ChangeOp uninstall_change(const Toolkit& toolkit, OthersFiles others) {
  return [toolkit, others](FileSystem& fs, EnvStore* env) -> Result<ChangeSummary> {
    TRY(check_something_to_uninstall(fs, toolkit));
    TRY_ASSIGN(auto undone, uninstall_all(fs, toolkit.root, env));
    ChangeSummary s = summary_of(undone.undone);
    auto left = cudnn_files_in(fs, toolkit);
    if (left.empty()) return s;
    if (others == OthersFiles::Remove) {
      TRY(remove_found_in_place(fs, toolkit, left, nullptr));
      s.headline.push_back("remove " + std::to_string(left.size()) +
                           " cuDNN files cudnn-install did not install (--force; --rollback restores them)");
    } else {
      s.after.insert(s.after.begin(), "left in place: " + std::to_string(left.size()) +
                                          " cuDNN files that cudnn-install did not install (--force removes them too)");
    }
    return s;
  };
}

Result<ChangePreview> preview_uninstall(FileSystem& real, EnvStore* env, const Toolkit& toolkit, OthersFiles others) {
  return dry_run_change(real, env, toolkit.root, uninstall_change(toolkit, others),
                        uninstall_outside(real, toolkit, others));
}

Result<UninstallResult> uninstall(Session& session, const Toolkit& toolkit, OthersFiles others,
                                  const ChangeHooks& hooks) {
  FileSystem& fs = *session.fs;
  TRY(check_something_to_uninstall(fs, toolkit));
  TRY_ASSIGN(auto outside, uninstall_outside(fs, toolkit, others));
  TRY(approve_change(session, toolkit.root, uninstall_change(toolkit, others), outside, hooks));
  Interrupts* interrupts = session.interrupts.get();
  TRY_ASSIGN(auto done, uninstall_all(fs, toolkit.root, session.env.get(), interrupts));
  UninstallResult result;
  result.undone = std::move(done.undone);
  result.remaining = done.remaining;
  result.stopped_by = interrupts ? interrupts->raised(Checkpoint::NextUndo) : Interruption::None;
  if (result.stopped_by != Interruption::None) return result;
  result.left = cudnn_files_in(fs, toolkit);
  if (others == OthersFiles::Leave || result.left.empty()) return result;
  auto removed = remove_found_in_place(fs, toolkit, result.left, interrupts);
  if (removed)
    result.removed = *removed;
  else
    result.removal_failed = removed.error();
  return result;
}

}  // namespace cudnn_install
