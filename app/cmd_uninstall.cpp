// `cudnn-install uninstall`: undo what this tool installed (restoring what it replaced); cuDNN
// files it did not install are left alone unless --force, which removes them in a transaction too.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"
#include "cudnn_install/uninstall.hpp"

namespace cudnn_install::cli {
namespace {

// Everything uninstall changes, on the real filesystem or on a preview of it.
ChangeOp uninstall_op(const Toolkit& tk, bool force) {
  return [tk, force](FileSystem& fs, EnvStore* env) -> Result<ChangeSummary> {
    if (auto there = check_something_to_uninstall(fs, tk); !there) return std::unexpected(there.error());
    auto undone = uninstall_all(fs, tk.root, env);
    if (!undone) return std::unexpected(undone.error());
    ChangeSummary s;
    bool loader = false;
    for (const auto& u : undone->undone) {
      s.headline.push_back("undo " + u.operation + " of cuDNN " + u.cudnn_version + " from " + u.archive + " (" + u.id +
                           ")");
      loader |= !u.outside_root.empty();
    }
    auto left = cudnn_files_in(fs, tk);
    if (force && !left.empty()) {
      if (auto removed = remove_found_in_place(fs, tk, left); !removed) return std::unexpected(removed.error());
      s.headline.push_back("remove " + std::to_string(left.size()) +
                           " cuDNN files cudnn-install did not install (--force; --rollback restores them)");
    } else if (!left.empty()) {
      s.after.push_back("left in place: " + std::to_string(left.size()) +
                        " cuDNN files that cudnn-install did not install (--force removes them too)");
    }
    if (loader) s.after.push_back("then run ldconfig (the loader configuration changes)");
    return s;
  };
}

int report_removed_in_place(const Toolkit& tk, Session& session, const std::map<std::string, ExistingFile>& left,
                            const Options& o) {
  auto outcome = remove_found_in_place(*session.fs, tk, left, session.interrupts.get());
  if (!outcome) return report_error(outcome.error(), o);
  answer()["changed"] = true;
  answer()["removed"] = {{"transaction", outcome->id}, {"files", outcome->files_removed}};
  answer()["left_in_place"] = nlohmann::json::array();
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "removed " << outcome->files_removed << " cuDNN files not installed by cudnn-install (transaction "
              << outcome->id << "; --rollback restores them).\n";
  return 0;
}

// Where the files uninstall removes or restores really are: the directories outside the toolkit's
// real path of every transaction it undoes, and (--force) of the files it removes in place.
Result<std::vector<OutsideDir>> uninstall_outside(FileSystem& fs, const Toolkit& tk, const Options& o) {
  return dirs_outside_real_root_of_undo(fs, tk.root, UndoScope::All,
                                        o.force ? removal_plan(tk, cudnn_files_in(fs, tk)) : Plan{});
}

// A signal came while uninstall undid its transactions: the one being undone was finished, the
// loop stopped before the next (or before --force's removal). Says what is left and how to finish.
int report_uninstall_stopped(Interruption signal, const Uninstalled& u, const Toolkit& tk, const Options& o) {
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

int dry_run_uninstall(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return report_error(toolkit.error(), o);
  auto outside = uninstall_outside(*make_real_filesystem(), *toolkit, o);
  if (!outside) return report_would_fail(outside.error(), o);
  return dry_run_change(*toolkit, uninstall_op(*toolkit, o.force), o, *outside);
}

}  // namespace

int cmd_uninstall(const Options& o) {
  if (o.mode == Mode::DryRun) return dry_run_uninstall(o);
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit* toolkit = &opened->toolkit;
  Session* session = &opened->session;
  answer()["toolkit"] = toolkit->root.string();
  if (auto there = check_something_to_uninstall(*session->fs, *toolkit); !there) return report_error(there.error(), o);
  auto outside = uninstall_outside(*session->fs, *toolkit, o);
  if (!outside) return report_error(outside.error(), o);
  if (auto ok = allow_writes_outside(*outside, o, "uninstall"); !ok) return report_error(ok.error(), o);
  if (auto ok = preview_and_confirm(*toolkit, *session, uninstall_op(*toolkit, o.force), "uninstall", o); !ok)
    return report_error(ok.error(), o);
  Interrupts* interrupts = session->interrupts.get();
  auto done = uninstall_all(*session->fs, toolkit->root, session->env.get(), interrupts);
  if (!done) return report_error(done.error(), o);
  const auto* undone = &done->undone;
  for (const auto& u : *undone) {
    answer()["changed"] = true;
    answer()["undone"].push_back(
        {{"id", u.id}, {"operation", u.operation}, {"cudnn_version", u.cudnn_version}, {"archive", u.archive}});
  }
  for (const auto& u : *undone)
    if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
      std::cout << "undone: " << u.operation << " of cuDNN " << u.cudnn_version << " from " << u.archive << " (" << u.id
                << ")\n";
  EnvChanged changed;
  for (const auto& u : *undone) changed.loader_config |= !u.outside_root.empty(), changed.path |= !u.path_entry.empty();
  after_env_change(changed, o);
  if (auto signal = interrupts ? interrupts->raised(Checkpoint::NextUndo) : Interruption::None;
      signal != Interruption::None)
    return report_uninstall_stopped(signal, *done, *toolkit, o);
  auto left = cudnn_files_in(*session->fs, *toolkit);
  if (left.empty()) return 0;
  for (const auto& [path, file] : left) answer()["left_in_place"].push_back(path);
  if (o.force) return report_removed_in_place(*toolkit, *session, left, o);
  if (o.format == Format::Json) return 0;
  std::cout << "left in place: " << left.size() << " cuDNN files that cudnn-install did not install:\n";
  for (const auto& [path, file] : left) std::cout << "  " << path << "\n";
  std::cout << "pass --force to remove them too (journalled: --rollback restores them).\n";
  return 0;
}

}  // namespace cudnn_install::cli
