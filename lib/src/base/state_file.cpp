#include "base/state_file.hpp"

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/state_dir.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

fs::path state_dir(const fs::path& root) { return root / kStateDirName; }
fs::path spool_dir(const fs::path& root) { return state_dir(root) / "spool"; }

StateFileWriter::StateFileWriter(FileSystem& fs, fs::path path, fs::path temp, std::unique_ptr<OutputFile> out)
    : fs_(&fs), path_(std::move(path)), temp_(std::move(temp)), out_(std::move(out)) {}

Result<StateFileWriter> StateFileWriter::start(FileSystem& fs, const fs::path& path) {
  fs::path temp = path;
  temp += ".tmp-" + std::to_string(util::process_id());  // state_temp_pid() reads it back
  (void)fs.remove(temp);                                 // left by a crash of an earlier run
  TRY_ASSIGN(auto out, fs.create_new(temp, 0644));
  return StateFileWriter(fs, path, temp, std::move(out));
}

std::optional<long> state_temp_pid(std::string_view name, std::string_view file_name) {
  constexpr std::string_view kTempMark = ".tmp-";
  if (!name.starts_with(file_name) || name.substr(file_name.size()).substr(0, kTempMark.size()) != kTempMark)
    return std::nullopt;
  std::string_view digits = name.substr(file_name.size() + kTempMark.size());
  if (digits.empty() || digits.size() > 10 || digits[0] == '0') return std::nullopt;
  long pid = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

StateFileWriter::~StateFileWriter() {
  if (!out_) return;  // committed, or moved from
  out_.reset();       // closed before it is removed (Windows cannot remove an open file)
  (void)fs_->remove(temp_);
}

Result<void> StateFileWriter::commit(std::string_view text) {
  Result<void> done = out_->write(text);
  if (done) done = out_->sync_and_close();
  out_.reset();  // from here on the destructor leaves the temporary alone
  if (done) done = fs_->rename(temp_, path_, RenameMode::Replace);
  if (!done) (void)fs_->remove(temp_);
  return done;
}

Result<void> replace_state_file(FileSystem& fs, const fs::path& path, std::string_view text) {
  TRY_ASSIGN(auto writer, StateFileWriter::start(fs, path));
  return writer.commit(text);
}

nlohmann::json identity_json(const FileIdentity& id) {
  return {id.device, id.inode, id.size, id.mtime_ns, id.ctime_ns};
}

FileIdentity identity_from(const nlohmann::json& j) {
  return {j.at(0).get<std::uint64_t>(), j.at(1).get<std::uint64_t>(), j.at(2).get<std::uint64_t>(),
          j.at(3).get<std::int64_t>(), j.at(4).get<std::int64_t>()};
}

}  // namespace cudnn_install
