#include "cudnn_install/file_stamps.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/state_file.hpp"
#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/state_dir.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace cudnn_install {
namespace {

fs::path stamps_file(const fs::path& root) { return state_dir(root) / "stamps.json"; }

// [device, inode, size, mtime_ns, ctime_ns, crc32]
json to_json(const FileStamp& s) {
  json j = identity_json(s.identity);
  j.push_back(s.crc32);
  return j;
}

FileStamp stamp_from(const json& j) { return {identity_from(j), j.at(5).get<std::uint32_t>()}; }

// One file's stamp: nothing when it changed in the tick the stamping began. Its CRC-32 is the one
// written when the file is unchanged since, or its earlier stamp's (a file the install found
// identical); otherwise the file is read, after its identity was taken, so that a write during
// the reading shows as a changed identity next time.
std::optional<FileStamp> stamp_one(FileSystem& fs, const fs::path& root, const std::string& target,
                                   std::int64_t taken_ns, const FileStamp* written, const FileStamps& before) {
  fs::path path = root / target;
  auto identity = fs.identity(path);
  if (!identity || identity->ctime_ns >= taken_ns) return std::nullopt;
  if (written && unchanged_since_written(written->identity, *identity)) return FileStamp{*identity, written->crc32};
  if (auto crc = before.crc_if_unchanged(target, *identity)) return FileStamp{*identity, *crc};
  auto crc = util::file_crc32(path);
  if (!crc) return std::nullopt;
  return FileStamp{*identity, *crc};
}

// Starts the new stamps file. Creating its temporary sets the state directory's modification
// time: the filesystem's own clock, the one change times are compared with. The files were
// written a moment ago, likely in the same tick of that clock, and could not be stamped: so
// wait (a few milliseconds) until the clock has passed the newest change time, or give up.
Result<std::pair<StateFileWriter, std::int64_t>> start_after(FileSystem& fs, const fs::path& root,
                                                             std::int64_t newest_ns) {
  constexpr int kTries = 20;
  for (int tries = 1;; ++tries) {
    TRY_ASSIGN(auto writer, StateFileWriter::start(fs, stamps_file(root)));
    auto clock = fs.identity(state_dir(root));
    if (!clock) return fail(ErrorCode::Io, "cannot read the time of the state directory", state_dir(root).string());
    if (clock->mtime_ns > newest_ns || tries == kTries) return std::pair{std::move(writer), clock->mtime_ns};
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

const FileStamp* find_in(const std::map<std::string, FileStamp>& written, const std::string& target) {
  auto it = written.find(target);
  return it == written.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<std::uint32_t> FileStamps::crc_if_unchanged(const std::string& target, const FileIdentity& now) const {
  auto it = files.find(target);
  if (it == files.end() || !(it->second.identity == now) || now.ctime_ns >= taken_ns) return std::nullopt;
  return it->second.crc32;
}

FileStamps read_file_stamps(FileSystem& fs, const fs::path& root) {
  auto text = fs.read_file(stamps_file(root));
  if (!text) return {};
  FileStamps stamps;
  try {
    json parsed = json::parse(*text);
    stamps.taken_ns = parsed.at("taken_ns").get<std::int64_t>();
    for (const auto& [target, j] : parsed.at("files").items()) stamps.files[target] = stamp_from(j);
  } catch (const json::exception&) {
    return {};  // damaged: the files are read instead
  }
  return stamps;
}

bool unchanged_since_written(const FileIdentity& written, const FileIdentity& now) {
  return written.device == now.device && written.inode == now.inode && written.size == now.size &&
         written.mtime_ns == now.mtime_ns && written.mtime_ns < now.ctime_ns;
}

Result<std::size_t> stamp_files(FileSystem& fs, const fs::path& root, const std::vector<std::string>& targets,
                                const std::map<std::string, FileStamp>& written) {
  std::int64_t newest = 0;
  for (const auto& target : targets)
    if (auto id = fs.identity(root / target)) newest = std::max(newest, id->ctime_ns);
  FileStamps before = read_file_stamps(fs, root);
  TRY_ASSIGN(auto started, start_after(fs, root, newest));
  auto& [writer, clock_ns] = started;
  json files = json::object();
  for (const auto& target : targets)
    if (auto stamp = stamp_one(fs, root, target, clock_ns, find_in(written, target), before))
      files[target] = to_json(*stamp);
  std::size_t stamped = files.size();
  if (auto r = writer.commit(json{{"taken_ns", clock_ns}, {"files", files}}.dump() + "\n"); !r)
    return std::unexpected(r.error());
  return stamped;
}

KnownCrc known_crc_from(FileSystem& fs, const FileStamps& stamps) {
  return [&fs, &stamps](const std::string& target, const fs::path& full) -> std::optional<std::uint32_t> {
    auto now = fs.identity(full);
    return now ? stamps.crc_if_unchanged(target, *now) : std::nullopt;
  };
}

}  // namespace cudnn_install
