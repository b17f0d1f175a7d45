// `cudnn-install --rollback`: undo the newest committed transaction, byte for byte.
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {
namespace {

// The rollback itself, on the real filesystem or on a preview of it; `undone`, when given, gets
// the transaction it undid (a dry run's answer names it).
ChangeOp rollback_op(const std::filesystem::path& root, std::shared_ptr<HistoryItem> undone = nullptr) {
  return [root, undone](FileSystem& fs, EnvStore* env) -> Result<ChangeSummary> {
    auto item = rollback_last(fs, root, env);
    if (!item) return std::unexpected(item.error());
    if (undone) *undone = *item;
    ChangeSummary s;
    s.headline.push_back("roll back transaction " + item->id + " (" + item->operation + " of cuDNN " +
                         item->cudnn_version + " from " + item->archive + ", " + item->time + "):");
    if (!item->outside_root.empty()) s.after.push_back("then run ldconfig (the loader configuration changes)");
    return s;
  };
}

// An interrupted install (or --rollback) was the newest change, and opening the session just undid
// (or finished undoing) it: that is the one undo asked for. The committed transaction before it
// stays until --rollback is run again, so one --rollback never undoes two transactions.
int report_recovery_only(const Recovery& r, const Toolkit& toolkit, const Options& o) {
  bool install = r.what == Recovery::What::RolledBack;
  answer()["changed"] = true;
  answer()["toolkit"] = toolkit.root.string();
  answer()["transaction"] = {{"id", r.id}, {"archive", ""}, {"cudnn_version", ""}};
  answer()["recovered"] = install ? "rolled-back" : "undo-finished";
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << (install ? "the interrupted transaction " + r.id + " was rolled back"
                          : "the interrupted rollback of transaction " + r.id + " was finished")
              << ": " << toolkit.root.string()
              << " is as it was before it. No committed transaction was undone; run --rollback again to undo the "
                 "newest one.\n";
  return 0;
}

// A signal came while the transaction was rolled back: the rollback was finished first (the
// toolkit is whole), and the command ends with the signal's exit code instead of 0.
int rolled_back_despite(Interruption signal, const HistoryItem& undone, const Toolkit& toolkit, const Options& o) {
  return report_error(
      Error{error_code_for(signal),
            "stopped by " + describe(signal) + ", which came while transaction " + undone.id +
                " was rolled back: that rollback was finished first (one is never left half-done), "
                "so " +
                toolkit.root.string() + " is as it was before that transaction. Nothing else was undone.",
            ""},
      o);
}

// The directories outside the toolkit's real path the rollback restores into or removes from: named,
// and allowed only at the prompt or with --yes, as an install's are.
Result<void> allow_rollback_outside(FileSystem& fs, const Toolkit& toolkit, const Options& o) {
  auto outside = dirs_outside_real_root_of_undo(fs, toolkit.root, UndoScope::Newest);
  if (!outside) return std::unexpected(outside.error());
  return allow_writes_outside(*outside, o, "roll back");
}

int dry_run_rollback(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  auto outside = dirs_outside_real_root_of_undo(*make_real_filesystem(), toolkit->root, UndoScope::Newest);
  if (!outside) return report_would_fail(outside.error(), o);
  auto undone = std::make_shared<HistoryItem>();
  int rc = dry_run_change(*toolkit, rollback_op(toolkit->root, undone), o, *outside);
  if (rc == 0)  // the transaction the real run would undo
    answer()["transaction"] = {
        {"id", undone->id}, {"archive", undone->archive}, {"cudnn_version", undone->cudnn_version}};
  return rc;
}

}  // namespace

int cmd_rollback(const Options& o) {
  if (o.mode == Mode::DryRun) return dry_run_rollback(o);
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit* toolkit = &opened->toolkit;
  if (auto r = opened->session.recovered;
      r.what == Recovery::What::RolledBack || r.what == Recovery::What::UndoFinished)
    return report_recovery_only(r, *toolkit, o);
  if (auto ok = allow_rollback_outside(*opened->session.fs, *toolkit, o); !ok) return report_error(ok.error(), o);
  if (auto ok = preview_and_confirm(*toolkit, opened->session, rollback_op(toolkit->root), "roll back", o); !ok)
    return report_error(ok.error(), o);
  Interrupts* interrupts = opened->session.interrupts.get();
  if (auto go = stop_if_interrupted(interrupts, Checkpoint::NextUndo); !go)
    return report_error(Error{go.error().code, go.error().message + ": nothing was changed.", ""}, o);
  auto undone = rollback_last(*opened->session.fs, toolkit->root, opened->session.env.get(), interrupts);
  if (!undone) return report_error(undone.error(), o);
  after_env_change({!undone->outside_root.empty(), !undone->path_entry.empty()}, o);
  answer()["changed"] = true;
  answer()["toolkit"] = toolkit->root.string();
  answer()["transaction"] = {
      {"id", undone->id}, {"archive", undone->archive}, {"cudnn_version", undone->cudnn_version}};
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "rolled back transaction " << undone->id << " (cuDNN " << undone->cudnn_version << " from "
              << undone->archive << "): " << toolkit->root.string() << " is as it was before.\n";
  if (auto signal = interrupts ? interrupts->raised(Checkpoint::NextUndo) : Interruption::None;
      signal != Interruption::None)
    return rolled_back_despite(signal, *undone, *toolkit, o);
  return 0;
}

}  // namespace cudnn_install::cli
