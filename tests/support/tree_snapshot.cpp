#include "support/tree_snapshot.hpp"

#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace cudnn_install::test {

Snapshot snapshot(const fs::path& root, const std::string& skip) {
  Snapshot snap;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::none, ec), end; !ec && it != end;
       it.increment(ec)) {
    fs::path rel = it->path().lexically_relative(root);
    if (!skip.empty() && rel.begin()->string() == skip) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    Node node;
    auto st = fs::symlink_status(it->path());
    node.mode = static_cast<std::uint32_t>(st.permissions()) & 07777;
    if (fs::is_symlink(st)) {
      node.type = 'l';
      node.link_target = fs::read_symlink(it->path()).string();
      node.mode = 0;
    } else if (fs::is_directory(st)) {
      node.type = 'd';
    } else if (fs::is_regular_file(st)) {
      std::ifstream in(it->path(), std::ios::binary);
      std::ostringstream out;
      out << in.rdbuf();
      node.content = out.str();
    } else {
      node.type = 'o';
    }
    snap[rel.generic_string()] = std::move(node);
  }
  return snap;
}

void materialize(const Snapshot& snap, const fs::path& root) {
  fs::create_directories(root);
  for (const auto& [rel, node] : snap) {  // std::map order puts parents before children
    fs::path path = root / rel;
    if (node.type == 'd') {
      fs::create_directory(path);
    } else if (node.type == 'l') {
      fs::create_symlink(node.link_target, path);
    } else {
      std::ofstream(path, std::ios::binary) << node.content;
    }
    if (node.type == 'f') fs::permissions(path, static_cast<fs::perms>(node.mode));
  }
  for (auto it = snap.rbegin(); it != snap.rend(); ++it)  // directories last, children first
    if (it->second.type == 'd') fs::permissions(root / it->first, static_cast<fs::perms>(it->second.mode));
}

std::string diff(const Snapshot& expected, const Snapshot& actual) {
  std::string out;
  int shown = 0;
  auto note = [&](const std::string& line) {
    if (shown++ < 10) out += line + "\n";
  };
  for (const auto& [path, node] : expected) {
    auto it = actual.find(path);
    if (it == actual.end())
      note("missing: " + path);
    else if (!(it->second == node))
      note("differs: " + path);
  }
  for (const auto& [path, node] : actual)
    if (!expected.count(path)) note("extra: " + path);
  if (shown > 10) out += "... " + std::to_string(shown - 10) + " more\n";
  return out;
}

}  // namespace cudnn_install::test
