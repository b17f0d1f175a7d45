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
  auto scan = make_process_finder()->find_holders(files);
  if (!scan) {
    spdlog::warn("{}", scan.error().message);
    return {};
  }
  if (scan->holders.empty() && scan->unknown.empty() && scan->unavailable.empty()) return {};
  std::string list = describe_holders(*scan);
#ifdef _WIN32
  // On Windows a loaded DLL cannot be replaced in place: holders block the install unless the
  // user asked for --replace-in-use (moving the loaded file aside).
  bool blocks = !o.replace_in_use;
#else
  bool blocks = o.require_no_holders;
#endif
  if (blocks && !scan->holders.empty())
    return fail(ErrorCode::Conflict, "processes use files this install would replace:\n" + list +
                                         "Stop them and run again" +
                                         (o.require_no_holders ? "." : ", or pass --replace-in-use."));
  if (!scan->holders.empty() && o.verbosity != Verbosity::Quiet)
    std::cerr << "cudnn-install: note: these processes use files this install replaces; they keep running the old "
                 "cuDNN until restarted:\n" << list;
  else if (!scan->unavailable.empty() && o.verbosity != Verbosity::Quiet)
    std::cerr << "cudnn-install: note: which processes use the files to replace is unknown here:\n" << list;
  else if (!scan->unknown.empty()) spdlog::info("{}", list);
  return {};
}

void report_still_running_old(const std::vector<WatchedFile>& files, const Options& o) {
  auto scan = make_process_finder()->find_holders(files);
  if (!scan || scan->holders.empty() || o.verbosity == Verbosity::Quiet) return;
  std::cerr << "cudnn-install: restart these to use the new cuDNN (they still run the old files):\n"
            << describe_holders(*scan);
}

}  // namespace cudnn_install::cli
