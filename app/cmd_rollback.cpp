// `cudnn-install --rollback`: undo the newest committed transaction, byte for byte.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {
namespace {

// The rollback itself, on the real filesystem or on a preview of it.
ChangeOp rollback_op(const std::filesystem::path& root) {
  return [root](FileSystem& fs, EnvStore* env) -> Result<ChangeSummary> {
    auto item = rollback_last(fs, root, env);
    if (!item) return std::unexpected(item.error());
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

}  // namespace

int cmd_rollback(const Options& o) {
  if (o.mode == Mode::DryRun) {
    auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
    if (!toolkit) return report_error(toolkit.error(), o);
    return dry_run_change(*toolkit, rollback_op(toolkit->root), o);
  }
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit* toolkit = &opened->toolkit;
  if (auto r = opened->session.recovered;
      r.what == Recovery::What::RolledBack || r.what == Recovery::What::UndoFinished)
    return report_recovery_only(r, *toolkit, o);
  if (auto ok = preview_and_confirm(*toolkit, opened->session, rollback_op(toolkit->root), "roll back", o); !ok)
    return report_error(ok.error(), o);
  auto undone = rollback_last(*opened->session.fs, toolkit->root, opened->session.env.get());
  if (!undone) return report_error(undone.error(), o);
  after_env_change({!undone->outside_root.empty(), !undone->path_entry.empty()}, o);
  answer()["changed"] = true;
  answer()["toolkit"] = toolkit->root.string();
  answer()["transaction"] = {
      {"id", undone->id}, {"archive", undone->archive}, {"cudnn_version", undone->cudnn_version}};
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "rolled back transaction " << undone->id << " (cuDNN " << undone->cudnn_version << " from "
              << undone->archive << "): " << toolkit->root.string() << " is as it was before.\n";
  return 0;
}

}  // namespace cudnn_install::cli
