// `cudnn-install uninstall` as library operations; the CLI adds the prompt and prints the results.
//   uninstall_all (txn.hpp):  undo every committed transaction, newest first, each one whole
//   remove_found_in_place:    --force: the cuDNN files cudnn-install did not install, removed in a
//                             transaction of their own (so --rollback restores them)
#pragma once
#include <map>
#include <string>

#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install {

// NothingToUndo when the toolkit has neither a transaction of this tool nor a cuDNN file.
Result<void> check_something_to_uninstall(FileSystem& fs, const Toolkit& toolkit);

// A signal (`interrupts`) rolls this transaction back, as it does an install.
Result<TxnOutcome> remove_found_in_place(FileSystem& fs, const Toolkit& toolkit,
                                         const std::map<std::string, ExistingFile>& found,
                                         Interrupts* interrupts = nullptr);

}  // namespace cudnn_install
