// `cudnn-install --rollback`: undo the newest committed transaction, byte for byte.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/rollback.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {
namespace {

// Opening the session undid (or finished undoing) an interrupted install or rollback: that was
// the one undo asked for (rollback.hpp).
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

void answer_transaction(const HistoryItem& item) {
  answer()["transaction"] = {{"id", item.id}, {"archive", item.archive}, {"cudnn_version", item.cudnn_version}};
}

int dry_run_rollback(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  auto env = open_env_store();
  auto preview = preview_rollback(*make_real_filesystem(), env.get(), *toolkit);
  if (!preview) return report_would_fail(preview.error(), o);
  int rc = report_change_preview(*toolkit, preview->change, o);
  answer_transaction(preview->undone);  // the transaction the real run would undo
  return rc;
}

int report_rolled_back(const HistoryItem& undone, const Toolkit& toolkit, const Options& o) {
  answer()["changed"] = true;
  answer()["toolkit"] = toolkit.root.string();
  answer_transaction(undone);
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "rolled back transaction " << undone.id << " (cuDNN " << undone.cudnn_version << " from "
              << undone.archive << "): " << toolkit.root.string() << " is as it was before.\n";
  return 0;
}

}  // namespace

int cmd_rollback(const Options& o) {
  if (o.mode == Mode::DryRun) return dry_run_rollback(o);
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit& toolkit = opened->toolkit;
  auto done = rollback(opened->session, toolkit, change_hooks(opened->session, toolkit, o, "roll back"));
  if (!done) return report_error(with_rollback_to_finish(done.error(), toolkit.root), o);
  if (!done->undone) return report_recovery_only(done->recovered, toolkit, o);
  after_env_change({!done->undone->outside_root.empty(), !done->undone->path_entry.empty()}, o);
  int rc = report_rolled_back(*done->undone, toolkit, o);
  if (done->late_signal != Interruption::None) return rolled_back_despite(done->late_signal, *done->undone, toolkit, o);
  return rc;
}

}  // namespace cudnn_install::cli
