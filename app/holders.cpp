// Processes that use files the install replaces: named before, and those still running the old
// files named after. On Linux a rename never disturbs a running process, so this warns by default.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli.hpp"
#include "cudnn_install/locks.hpp"

namespace cudnn_install::cli {

std::vector<WatchedFile> files_replaced(const Plan& plan, const std::filesystem::path& root) {
  std::vector<WatchedFile> files;
  for (const auto& s : plan.steps) {
    if (s.action != Action::Overwrite && s.action != Action::Remove) continue;
    std::filesystem::path path = root / s.target;
    if (auto id = file_id(path)) files.push_back({path.string(), *id});
  }
  return files;
}

Result<void> check_holders(const std::vector<WatchedFile>& files, const Options& o) {
#ifdef _WIN32
  HolderRule rule = o.replace_in_use && !o.require_no_holders ? HolderRule::Warn : HolderRule::Refuse;
#else
  HolderRule rule = o.require_no_holders ? HolderRule::Refuse : HolderRule::Warn;
#endif
  auto note = cudnn_install::check_holders(
      *make_process_finder(), files, rule,
      o.require_no_holders ? "Stop them and run again." : "Stop them and run again, or pass --replace-in-use.");
  if (!note) return std::unexpected(note.error());
  if (!note->empty() && o.verbosity != Verbosity::Quiet) std::cerr << "cudnn-install: note: " << *note;
  return {};
}

void report_still_running_old(const std::vector<WatchedFile>& files, const Options& o) {
  auto scan = make_process_finder()->find_holders(files);
  if (!scan || scan->holders.empty() || o.verbosity == Verbosity::Quiet) return;
  std::cerr << "cudnn-install: restart these to use the new cuDNN (they still run the old files):\n"
            << describe_holders(*scan);
}

}  // namespace cudnn_install::cli
