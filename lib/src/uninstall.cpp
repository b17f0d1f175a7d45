#include "cudnn_install/uninstall.hpp"

namespace cudnn_install {

Result<void> check_something_to_uninstall(FileSystem& fs, const Toolkit& toolkit) {
  auto history = read_history(fs, toolkit.root);
  if (!history) return std::unexpected(history.error());
  if (history->empty() && cudnn_files_in(fs, toolkit).empty())
    return fail(ErrorCode::NothingToUndo, "there is no cuDNN in " + toolkit.root.string());
  return {};
}

Result<TxnOutcome> remove_found_in_place(FileSystem& fs, const Toolkit& toolkit,
                                         const std::map<std::string, ExistingFile>& found, Interrupts* interrupts) {
  ApplyOptions options;
  options.operation = "uninstall";
  options.interrupts = interrupts;
  return apply_plan(fs, toolkit.root, ArchiveInfo{}, removal_plan(toolkit, found), options);
}

}  // namespace cudnn_install
