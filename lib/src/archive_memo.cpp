#include "cudnn_install/archive_memo.hpp"

#include <nlohmann/json.hpp>

#include "base/state_file.hpp"
#include "base/util.hpp"
#include "cudnn_install/state_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudnn_install {
namespace {

fs::path memo_file(const fs::path& root) { return state_dir(root) / "archives.json"; }

json to_json(const RawEntry& e) {
  json j = {{"name", e.name}, {"type", static_cast<int>(e.type)}, {"size", e.size}, {"mode", e.mode}};
  if (!e.link_target.empty()) j["link"] = e.link_target;
  if (e.crc32) j["crc32"] = *e.crc32;
  return j;
}

RawEntry entry_from(const json& j) {
  RawEntry e;
  e.name = j.at("name").get<std::string>();
  e.type = static_cast<EntryType>(j.at("type").get<int>());
  e.size = j.at("size").get<std::uint64_t>();
  e.mode = j.at("mode").get<std::uint32_t>();
  e.link_target = j.value("link", "");
  if (j.contains("crc32")) e.crc32 = j["crc32"].get<std::uint32_t>();
  return e;
}

json to_json(const ArchiveMemo& m) {
  json entries = json::array();
  for (const auto& e : m.listing.entries) entries.push_back(to_json(e));
  return {{"identity", identity_json(m.identity)},
          {"sha256", m.sha256},
          {"time", m.time},
          {"entries", entries},
          {"captured", m.listing.captured}};
}

ArchiveMemo memo_from(const json& j) {
  ArchiveMemo m;
  m.identity = identity_from(j.at("identity"));
  m.sha256 = j.at("sha256").get<std::string>();
  m.time = j.value("time", "");
  for (const auto& e : j.at("entries")) m.listing.entries.push_back(entry_from(e));
  m.listing.captured = j.at("captured").get<std::map<std::string, std::string>>();
  return m;
}

}  // namespace

std::vector<ArchiveMemo> read_archive_memos(FileSystem& fs, const fs::path& root) {
  auto text = fs.read_file(memo_file(root));
  if (!text) return {};
  std::vector<ArchiveMemo> memos;
  try {
    json parsed = json::parse(*text);  // (a temporary in the range-for would die before the loop)
    for (const auto& j : parsed.at("archives")) memos.push_back(memo_from(j));
  } catch (const json::exception&) {
    return {};  // damaged: forget it, the archive is simply read again
  }
  return memos;
}

std::optional<ArchiveMemo> find_archive_memo(FileSystem& fs, const fs::path& root, const fs::path& archive) {
  auto id = fs.identity(archive);
  if (!id) return std::nullopt;
  for (auto& m : read_archive_memos(fs, root))
    if (m.identity == *id) return std::move(m);
  return std::nullopt;
}

Result<void> remember_archive(FileSystem& fs, const fs::path& root, ArchiveMemo memo) {
  if (memo.time.empty()) memo.time = util::utc_now();
  json list = json::array({to_json(memo)});
  for (const auto& m : read_archive_memos(fs, root))
    if (!(m.identity == memo.identity) && list.size() < kRememberedArchives) list.push_back(to_json(m));
  return replace_state_file(fs, memo_file(root), json{{"archives", list}}.dump() + "\n");
}

}  // namespace cudnn_install
