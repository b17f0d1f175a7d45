// `cudnn-install uninstall`: undo what this tool installed (restoring what it replaced); cuDNN
// files it did not install are left alone unless --force, which removes them in a transaction too.
// The work is the library's uninstall() (uninstall.hpp); this file prints what it did.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"
#include "cudnn_install/uninstall.hpp"

namespace cudnn_install::cli {
namespace {

OthersFiles others_files(const Options& o) { return o.force ? OthersFiles::Remove : OthersFiles::Leave; }

int dry_run_uninstall(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  auto env = open_env_store();
  auto preview = preview_uninstall(*make_real_filesystem(), env.get(), *toolkit, others_files(o));
  if (!preview) return report_would_fail(preview.error(), o);
  return report_change_preview(*toolkit, *preview, o);
}

void report_undone(const std::vector<HistoryItem>& undone, const Options& o) {
  EnvChanged changed;
  for (const auto& u : undone) {
    answer()["changed"] = true;
    answer()["undone"].push_back(
        {{"id", u.id}, {"operation", u.operation}, {"cudnn_version", u.cudnn_version}, {"archive", u.archive}});
    if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
      std::cout << "undone: " << u.operation << " of cuDNN " << u.cudnn_version << " from " << u.archive << " (" << u.id
                << ")\n";
    changed.loader_config |= !u.outside_root.empty();
    changed.path |= !u.path_entry.empty();
  }
  after_env_change(changed, o);
}

// A signal came while uninstall undid its transactions: the one being undone was finished, the
// loop stopped before the next (or before --force's removal). Says what is left and how to finish.
int report_uninstall_stopped(Interruption signal, const UninstallResult& u, const Toolkit& tk, const Options& o) {
  std::vector<std::string> again{"uninstall", "--cuda-root", path_arg(tk.root)};
  if (o.force) again.push_back("--force");
  std::string done = u.undone.empty() ? "before undoing any transaction (nothing was changed)"
                                      : "after undoing transaction " + u.undone.back().id + " (" +
                                            std::to_string(u.undone.size()) + " undone, each one whole)";
  std::string left = u.remaining == 1 ? "1 transaction remains" : std::to_string(u.remaining) + " transactions remain";
  if (u.remaining == 0)
    left = o.force ? "every transaction is undone, but the cuDNN files cudnn-install did not install were not removed"
                   : "every transaction is undone";
  std::string next = u.remaining == 0 && !o.force ? "; nothing is left to do."
                                                  : "; run " + command_to_paste(again) + " again to finish.";
  answer()["remaining"] = u.remaining;
  return report_error(
      Error{error_code_for(signal), "stopped by " + describe(signal) + " " + done + "; " + left + next, ""}, o);
}

int report_removed_in_place(const TxnOutcome& removed, const Options& o) {
  answer()["changed"] = true;
  answer()["removed"] = {{"transaction", removed.id}, {"files", removed.files_removed}};
  answer()["left_in_place"] = nlohmann::json::array();
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "removed " << removed.files_removed << " cuDNN files not installed by cudnn-install (transaction "
              << removed.id << "; --rollback restores them).\n";
  return 0;
}

// What became of the cuDNN files cudnn-install did not install: removed (--force) or listed.
int report_others_files(const UninstallResult& done, const Options& o) {
  if (done.left.empty()) return 0;
  if (done.removal_failed) return report_error(*done.removal_failed, o);
  if (done.removed) return report_removed_in_place(*done.removed, o);
  for (const auto& [path, file] : done.left) answer()["left_in_place"].push_back(path);
  if (o.format == Format::Json) return 0;
  std::cout << "left in place: " << done.left.size() << " cuDNN files that cudnn-install did not install:\n";
  for (const auto& [path, file] : done.left) std::cout << "  " << path << "\n";
  std::cout << "pass --force to remove them too (journalled: --rollback restores them).\n";
  return 0;
}

}  // namespace

int cmd_uninstall(const Options& o) {
  if (o.mode == Mode::DryRun) return dry_run_uninstall(o);
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit& toolkit = opened->toolkit;
  answer()["toolkit"] = toolkit.root.string();
  auto hooks = change_hooks(opened->session, toolkit, o, "uninstall");
  auto done = uninstall(opened->session, toolkit, others_files(o), hooks);
  if (!done) return report_error(with_rollback_to_finish(done.error(), toolkit.root), o);
  report_undone(done->undone, o);
  if (done->stopped_by != Interruption::None) return report_uninstall_stopped(done->stopped_by, *done, toolkit, o);
  return report_others_files(*done, o);
}

}  // namespace cudnn_install::cli
