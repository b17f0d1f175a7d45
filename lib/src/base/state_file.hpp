// The cache files of the state directory (archives.json, stamps.json) are replaced whole: a
// temporary beside the file (named after this process) is written, fsynced and renamed over it,
// so a reader sees the old file or the new one, never a part of either.
#pragma once
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>

#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"

namespace cudnn_install {

class StateFileWriter {
 public:
  // Creates the temporary now (a stale one left by a crash is replaced).
  static Result<StateFileWriter> start(FileSystem& fs, const std::filesystem::path& path);
  StateFileWriter(StateFileWriter&&) = default;
  ~StateFileWriter();  // not committed: the temporary is removed

  Result<void> commit(std::string_view text);  // write, fsync, rename over the file

 private:
  StateFileWriter(FileSystem& fs, std::filesystem::path path, std::filesystem::path temp,
                  std::unique_ptr<OutputFile> out);
  FileSystem* fs_;
  std::filesystem::path path_, temp_;
  std::unique_ptr<OutputFile> out_;
};

// The PID in the name of a temporary that start() makes for `file_name` ("stamps.json.tmp-4242"),
// or nullopt when `name` is not exactly such a temporary.
std::optional<long> state_temp_pid(std::string_view name, std::string_view file_name);

// start() + commit() in one step.
Result<void> replace_state_file(FileSystem& fs, const std::filesystem::path& path, std::string_view text);

// A file identity as the state files store it: [device, inode, size, mtime_ns, ctime_ns].
// identity_from throws nlohmann::json::exception when the array is not that.
nlohmann::json identity_json(const FileIdentity& id);
FileIdentity identity_from(const nlohmann::json& j);

}  // namespace cudnn_install
