#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "base/util.hpp"
#include "cudnn_install/locks.hpp"

namespace cudnn_install {

// "7f...-7f... r-xp 00000000 08:01 1234567   /usr/lib/libcudnn.so.9.19.0 (deleted)"
std::optional<MapsLine> parse_maps_line(const std::string& line) {
  std::istringstream in(line);
  std::string range, perms, offset, dev;
  unsigned long long inode = 0;
  if (!(in >> range >> perms >> offset >> dev >> inode) || inode == 0) return std::nullopt;
  auto colon = dev.find(':');  // "fd:01", in hex
  auto major_part = util::leading_number<unsigned>(std::string_view(dev).substr(0, colon), 16);
  auto minor_part = colon == std::string::npos
                        ? std::nullopt
                        : util::leading_number<unsigned>(std::string_view(dev).substr(colon + 1), 16);
  if (!major_part || !minor_part) return std::nullopt;
  unsigned major = major_part->first, minor = minor_part->first;
  std::string path;
  std::getline(in >> std::ws, path);
  MapsLine m;
  // Same encoding as the kernel's new_encode_dev() for st_dev.
  m.id = {(static_cast<unsigned long long>(minor) & 0xff) | (static_cast<unsigned long long>(major) << 8) |
              ((static_cast<unsigned long long>(minor) & ~0xffULL) << 12),
          inode};
  const std::string suffix = " (deleted)";
  if (path.size() > suffix.size() && path.ends_with(suffix)) {
    m.deleted = true;
    path.resize(path.size() - suffix.size());
  }
  m.path = path;
  return m;
}

std::string describe_holders(const HolderScan& scan) {
  std::string out;
  for (const auto& h : scan.holders)
    out += fmt::format("  PID {:<7} {:<10} {}  {} {}\n", h.pid, h.user, h.program,
                       h.how == Holder::How::OpenFile ? "has open" : "maps", h.file);
  if (!scan.unavailable.empty()) out += "  holders: unknown (not available): " + scan.unavailable + "\n";
  if (!scan.unknown.empty() && scan.as_root)
    out += fmt::format(
        "  {} process(es) could not be inspected even as root (unknown, not free): the kernel refused to show their "
        "maps or open files (no CAP_SYS_PTRACE, as in many containers, or a security module)\n",
        scan.unknown.size());
  else if (!scan.unknown.empty())
    out += fmt::format("  {} process(es) could not be inspected (unknown, not free): run as root to see all\n",
                       scan.unknown.size());
  return out;
}

Result<std::string> judge_holders(const HolderScan& scan, HolderRule rule, const std::string& how_to_proceed) {
  std::string list = describe_holders(scan);
  if (!scan.holders.empty() && rule == HolderRule::Refuse)
    return fail(ErrorCode::Conflict, "processes use files this install would replace:\n" + list + how_to_proceed);
  if (!scan.holders.empty())
    return "these processes use files this install replaces; they keep running the old cuDNN until restarted:\n" + list;
  if (!scan.unavailable.empty()) return "which processes use the files to replace is unknown here:\n" + list;
  return std::string();  // (processes that could not be inspected are logged by the caller)
}

Result<std::string> check_holders(ProcessFinder& finder, const std::vector<WatchedFile>& files, HolderRule rule,
                                  const std::string& how_to_proceed) {
  auto scan = finder.find_holders(files);
  if (!scan) return judge_holders(HolderScan{{}, {}, scan.error().message}, rule, how_to_proceed);
  return judge_holders(*scan, rule, how_to_proceed);
}

}  // namespace cudnn_install
