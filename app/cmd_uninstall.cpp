// `cudnn-install uninstall`: undo what this tool installed (restoring what it replaced); cuDNN
// files it did not install are left alone unless --force, which removes them in a transaction too.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {
namespace {

int remove_found_in_place(const Toolkit& tk, Session& session, const std::map<std::string, ExistingFile>& left,
                          const Options& o) {
  Plan plan = removal_plan(tk, left);
  ApplyOptions options;
  options.operation = "uninstall";
  auto outcome = apply_plan(*session.fs, tk.root, ArchiveInfo{}, plan, options);
  if (!outcome) return report_error(outcome.error(), o);
  answer()["changed"] = true;
  answer()["removed"] = {{"transaction", outcome->id}, {"files", outcome->files_removed}};
  answer()["left_in_place"] = nlohmann::json::array();
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "removed " << outcome->files_removed << " cuDNN files not installed by cudnn-install (transaction "
              << outcome->id << "; --rollback restores them).\n";
  return 0;
}

}  // namespace

int cmd_uninstall(const Options& o) {
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit* toolkit = &opened->toolkit;
  Session* session = &opened->session;
  answer()["toolkit"] = toolkit->root.string();
  auto history = read_history(*session->fs, toolkit->root);
  if (!history) return report_error(history.error(), o);
  if (history->empty() && cudnn_files_in(*session->fs, *toolkit).empty())
    return report_error(Error{ErrorCode::NothingToUndo, "there is no cuDNN in " + toolkit->root.string(), {}}, o);
  if (auto ok = confirm(o); !ok) return report_error(ok.error(), o);
  auto undone = uninstall_all(*session->fs, toolkit->root, session->env.get());
  if (!undone) return report_error(undone.error(), o);
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
  auto left = cudnn_files_in(*session->fs, *toolkit);
  if (left.empty()) return 0;
  for (const auto& [path, file] : left) answer()["left_in_place"].push_back(path);
  if (o.force) return remove_found_in_place(*toolkit, *session, left, o);
  if (o.format == Format::Json) return 0;
  std::cout << "left in place: " << left.size() << " cuDNN files that cudnn-install did not install:\n";
  for (const auto& [path, file] : left) std::cout << "  " << path << "\n";
  std::cout << "pass --force to remove them too (journalled: --rollback restores them).\n";
  return 0;
}

}  // namespace cudnn_install::cli
