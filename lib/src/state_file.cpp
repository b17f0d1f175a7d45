#include "state_file.hpp"

#include "util.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

StateFileWriter::StateFileWriter(FileSystem& fs, fs::path path, fs::path temp, std::unique_ptr<OutputFile> out)
    : fs_(&fs), path_(std::move(path)), temp_(std::move(temp)), out_(std::move(out)) {}

Result<StateFileWriter> StateFileWriter::start(FileSystem& fs, const fs::path& path) {
  fs::path temp = path;
  temp += ".tmp-" + std::to_string(util::process_id());
  (void)fs.remove(temp);  // left by a crash of an earlier run
  auto out = fs.create_new(temp, 0644);
  if (!out) return std::unexpected(out.error());
  return StateFileWriter(fs, path, temp, std::move(*out));
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
  if (done) done = fs_->rename(temp_, path_);
  if (!done) (void)fs_->remove(temp_);
  return done;
}

Result<void> replace_state_file(FileSystem& fs, const fs::path& path, std::string_view text) {
  auto writer = StateFileWriter::start(fs, path);
  if (!writer) return std::unexpected(writer.error());
  return writer->commit(text);
}

nlohmann::json identity_json(const FileIdentity& id) {
  return {id.device, id.inode, id.size, id.mtime_ns, id.ctime_ns};
}

FileIdentity identity_from(const nlohmann::json& j) {
  return {j.at(0).get<std::uint64_t>(), j.at(1).get<std::uint64_t>(), j.at(2).get<std::uint64_t>(),
          j.at(3).get<std::int64_t>(), j.at(4).get<std::int64_t>()};
}

}  // namespace cudnn_install
