// Refuses every entry that could write outside the toolkit or that is not a plain file or a
// same-directory symlink. Runs on the listing, before anything is written anywhere.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "archive_inspect.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive.hpp"

namespace cudnn_install {
namespace {

bool has_dotdot(const std::string& path) {
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (path.compare(start, slash - start, "..") == 0 && slash - start == 2) return true;
    start = slash + 1;
  }
  return false;
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// A component Windows cannot hold as a file name: a device name (CON, aux.h: the extension does not
// matter), or one ending in a dot or a space (Windows drops them, so two names would meet).
std::string windows_unfit(const std::string& name) {
  static const std::set<std::string> devices = {
      "con",  "prn",  "aux",         "nul",         "conin$",      "conout$",     "com0",        "com1",
      "com2", "com3", "com4",        "com5",        "com6",        "com7",        "com8",        "com9",
      "lpt0", "lpt1", "lpt2",        "lpt3",        "lpt4",        "lpt5",        "lpt6",        "lpt7",
      "lpt8", "lpt9", "com\xc2\xb9", "com\xc2\xb2", "com\xc2\xb3", "lpt\xc2\xb9", "lpt\xc2\xb2", "lpt\xc2\xb3"};
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t slash = std::min(name.find('/', start), name.size());
    std::string part = name.substr(start, slash - start);
    start = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part.ends_with('.') || part.ends_with(' '))
      return "has a component ending in a dot or a space ('" + part + "'), which Windows drops";
    std::string base = util::lower(part.substr(0, part.find('.')));
    while (base.ends_with(' ')) base.pop_back();
    if (devices.contains(base)) return fmt::format("is named after the Windows device '{}' ('{}')", base, part);
  }
  return {};
}

// Why a single entry is unsafe on its own, or empty if it is fine.
std::string unsafe_by_itself(const RawEntry& e, const std::string& name, TargetOs os) {
  if (name.empty()) return "has an empty name";
  if (name.starts_with('/')) return "is an absolute path";
  if (name.size() >= 2 && std::isalpha(static_cast<unsigned char>(name[0])) && name[1] == ':')
    return "starts with a drive letter";
  if (has_dotdot(name)) return "contains '..' and would be written outside the toolkit";
  if (std::any_of(name.begin(), name.end(), [](unsigned char c) { return c < 0x20; }))
    return "contains control characters";
  if (os == TargetOs::Windows && name.find_first_of("<>:\"|?*") != std::string::npos)
    return "contains characters that are invalid in Windows file names";
  if (os == TargetOs::Windows)
    if (auto why = windows_unfit(name); !why.empty()) return why;
  switch (e.type) {
    case EntryType::Hardlink:
      return "is a hard link (to '" + e.link_target + "')";
    case EntryType::Device:
      return "is a device node";
    case EntryType::Fifo:
      return "is a FIFO";
    case EntryType::Other:
      return "is not a regular file, directory or symlink";
    default:
      break;
  }
  if (e.type == EntryType::Symlink) {
    const std::string& t = e.link_target;
    if (t.empty()) return "is a symlink with an empty target";
    if (t.starts_with('/') || t.find('\\') != std::string::npos || (t.size() > 1 && t[1] == ':'))
      return "is a symlink to an absolute path ('" + t + "')";
    if (t.find('/') != std::string::npos) return "is a symlink that leaves its own directory ('" + t + "')";
    if (t == "." || t == "..") return "is a symlink to a directory ('" + t + "')";
  }
  return {};
}

// Follows a same-directory symlink chain; it must end at a file in the archive.
std::string unresolvable(const std::string& link, const std::map<std::string, const RawEntry*>& by_name) {
  std::string dir = parent_of(link);
  std::string current = link;
  for (int hops = 0; hops < 40; ++hops) {
    const RawEntry* e = by_name.at(current);
    if (e->type != EntryType::Symlink) return {};
    current = dir.empty() ? e->link_target : dir + "/" + e->link_target;
    if (!by_name.count(current)) return "is a symlink to '" + e->link_target + "', which is not in the archive";
  }
  return "is part of a symlink loop";
}

}  // namespace

std::string normalise_entry_name(std::string name) {
  std::replace(name.begin(), name.end(), '\\', '/');
  while (name.starts_with("./")) name.erase(0, 2);
  while (name.ends_with('/')) name.pop_back();
  return name;
}

Result<void> check_entry_safety(const std::vector<RawEntry>& entries, TargetOs os) {
  std::vector<std::string> problems;
  auto refuse = [&](const std::string& name, const std::string& why) {
    problems.push_back("entry '" + name + "' " + why);
  };
  std::map<std::string, const RawEntry*> by_name;
  std::map<std::string, std::string> by_folded_name;
  std::set<std::string> symlinks;
  for (const auto& e : entries) {
    std::string name = normalise_entry_name(e.name);
    if (e.type == EntryType::Symlink) symlinks.insert(name);  // even a refused one: nothing may go through it
    if (auto why = unsafe_by_itself(e, name, os); !why.empty()) {
      refuse(e.name, why);
      continue;
    }
    if (e.type == EntryType::Directory) continue;
    if (!by_name.emplace(name, &e).second) {
      refuse(e.name, "appears twice in the archive");
      continue;
    }
    auto [it, fresh] = by_folded_name.emplace(util::lower(name), name);
    if (!fresh && os == TargetOs::Windows)
      refuse(e.name, "differs from '" + it->second + "' only in case (they collide on Windows)");
  }
  for (const auto& [name, e] : by_name) {
    for (std::string dir = parent_of(name); !dir.empty(); dir = parent_of(dir))
      if (symlinks.count(dir)) refuse(e->name, "would be written through the symlink '" + dir + "'");
    if (e->type != EntryType::Symlink) continue;
    if (auto why = unresolvable(name, by_name); !why.empty()) refuse(e->name, why);
  }
  if (by_name.empty() && problems.empty()) problems.push_back("the archive has no files");
  if (problems.empty()) return {};
  std::string message = "refusing the archive: it has unsafe or invalid entries:";
  for (size_t i = 0; i < problems.size() && i < 20; ++i) message += "\n  - " + problems[i];
  if (problems.size() > 20) message += "\n  ... and " + std::to_string(problems.size() - 20) + " more";
  return fail(problems.size() == 1 && by_name.empty() ? ErrorCode::BadArchive : ErrorCode::UnsafeEntry, message,
              problems.front());
}

}  // namespace cudnn_install
