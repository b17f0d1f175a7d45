// `cudnn-install --rollback`: undo the newest committed transaction, byte for byte.
#include <iostream>

#include "cli.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {

int cmd_rollback(const Options& o) {
  auto opened = open_toolkit_session(o);
  if (!opened) return report_error(opened.error(), o);
  const Toolkit* toolkit = &opened->toolkit;
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
