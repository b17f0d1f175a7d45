// A byte-exact picture of a directory tree: type, mode, link target and content of every entry.
// Two snapshots are equal exactly when the trees are; the diff says where they differ.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace cudnn_install::test {

struct Node {
  char type = 'f';  // f file, d dir, l symlink, o other
  std::uint32_t mode = 0;
  std::string link_target;
  std::string content;  // files: the bytes themselves (test trees are small)
  bool operator==(const Node&) const = default;
};

using Snapshot = std::map<std::string, Node>;

// Everything under root except paths whose first component is in `skip` (e.g. ".cudnn-install").
Snapshot snapshot(const std::filesystem::path& root, const std::string& skip = ".cudnn-install");
// Recreates a snapshot under root (which must not exist yet).
void materialize(const Snapshot& snap, const std::filesystem::path& root);
// "" when equal, else the first few differences, for test messages.
std::string diff(const Snapshot& expected, const Snapshot& actual);

}  // namespace cudnn_install::test
