// The filesystem operations the transaction performs, behind an interface so that tests can
// fail the Nth operation (tests/support/faulty_filesystem) and check that nothing is lost.
#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cudnn_install/entry_type.hpp"
#include "cudnn_install/error.hpp"

namespace cudnn_install {

struct FileStat {
  EntryType type = EntryType::File;
  std::uint64_t size = 0;
  std::uint32_t mode = 0;
  std::string link_target;
};

// What identifies one version of a file without reading it: while all of it is unchanged, so are
// the bytes (any write moves the change time, which programs cannot set back). As git's index.
struct FileIdentity {
  std::uint64_t device = 0, inode = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

// A new file being written; close() makes its content durable (fsync) before returning.
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual Result<void> write(std::span<const char> bytes) = 0;
  virtual Result<void> sync_and_close() = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Creates a file that must not exist yet, with exactly these permission bits.
  virtual Result<std::unique_ptr<OutputFile>> create_new(const std::filesystem::path& path, std::uint32_t mode) = 0;
  virtual Result<void> make_symlink(const std::string& target, const std::filesystem::path& link) = 0;
  // Atomic replace: `to` is either the old or the new file, never missing, never partial.
  virtual Result<void> rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // A file, a symlink or an empty directory.
  virtual Result<void> remove(const std::filesystem::path& path) = 0;
  virtual Result<void> make_dir(const std::filesystem::path& path) = 0;
  virtual Result<void> sync_dir(const std::filesystem::path& path) = 0;
  // Appends one record and fsyncs it (the journal).
  virtual Result<void> append_durable(const std::filesystem::path& path, std::string_view bytes) = 0;
  // lstat: symlinks are not followed; nullopt when nothing is there.
  virtual Result<std::optional<FileStat>> stat(const std::filesystem::path& path) = 0;
  virtual Result<std::string> read_file(const std::filesystem::path& path) = 0;
  virtual Result<std::vector<std::string>> list_dir(const std::filesystem::path& path) = 0;
  // A Conflict when a running program has the file loaded or open, so that replacing it must not
  // be tried (Windows). On POSIX a rename never disturbs a running program: always fine.
  virtual Result<void> check_not_in_use(const std::filesystem::path&) { return {}; }
  // nullopt when the file is not there or the platform cannot tell (then nothing is remembered).
  virtual std::optional<FileIdentity> identity(const std::filesystem::path&) { return std::nullopt; }
};

// The real filesystem of this platform (filesystem_posix.cpp / filesystem_win32.cpp).
std::unique_ptr<FileSystem> make_real_filesystem();

}  // namespace cudnn_install
