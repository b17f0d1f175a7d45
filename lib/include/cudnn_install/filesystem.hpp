// The filesystem operations the transaction performs, behind an interface so that tests can
// fail the Nth operation (tests/support/faulty_filesystem) and check that nothing is lost.
#pragma once
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <functional>
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

// The filesystem a path is on and the room left there (statvfs / GetDiskFreeSpaceExW).
struct FreeSpace {
  std::uint64_t device = 0;     // which filesystem: paths with the same device share `available`
  std::uint64_t available = 0;  // bytes this process may still write there
  std::uint64_t block = 4096;   // allocation unit: a file takes its size rounded up to it
};

// What names a filesystem can hold (pathconf _PC_NAME_MAX/_PC_PATH_MAX; Windows: 255 and MAX_PATH).
struct NameLimits {
  std::uint64_t name_max = 255;   // bytes of one path component
  std::uint64_t path_max = 4096;  // bytes of a whole path, its terminating NUL included
};

// Whether a rename may replace what is at its destination. NoReplace is for a destination the plan
// found empty (a create, a backup): a file that appeared there since (a race with another program
// while the user read the prompt) is never replaced, and the rename fails with ErrorCode::Conflict.
enum class RenameMode { Replace, NoReplace };

// A new file being written; close() makes its content durable (fsync) before returning.
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual Result<void> write(std::span<const char> bytes) = 0;
  virtual Result<void> sync_and_close() = 0;
};

using ChunkReader = std::function<void(std::string_view)>;

class FileSystem {
 public:
  virtual ~FileSystem() = default;
  // Creates a file that must not exist yet, with exactly these permission bits.
  virtual Result<std::unique_ptr<OutputFile>> create_new(const std::filesystem::path& path, std::uint32_t mode) = 0;
  virtual Result<void> make_symlink(const std::string& target, const std::filesystem::path& link) = 0;
  // Replace: atomic replace: `to` is either the old or the new file, never missing, never partial.
  // NoReplace: `to` must not exist; if something is there, it is left untouched (Conflict).
  virtual Result<void> rename(const std::filesystem::path& from, const std::filesystem::path& to, RenameMode mode) = 0;
  // A file, a symlink or an empty directory.
  virtual Result<void> remove(const std::filesystem::path& path) = 0;
  virtual Result<void> make_dir(const std::filesystem::path& path) = 0;
  virtual Result<void> sync_dir(const std::filesystem::path& path) = 0;
  // Appends one record and fsyncs it (the journal).
  virtual Result<void> append_durable(const std::filesystem::path& path, std::string_view bytes) = 0;
  // lstat: symlinks are not followed; nullopt when nothing is there.
  virtual Result<std::optional<FileStat>> stat(const std::filesystem::path& path) = 0;
  // A file's bytes in chunks given to `sink` in order (files too large to hold), or whole (read_file).
  // Symlinks are not followed.
  virtual Result<void> read_chunks(const std::filesystem::path& path, const ChunkReader& sink) = 0;
  Result<std::string> read_file(const std::filesystem::path& path) {
    std::string text;
    if (auto read = read_chunks(path, [&text](std::string_view chunk) { text += chunk; }); !read)
      return std::unexpected(read.error());
    return text;
  }
  virtual Result<std::vector<std::string>> list_dir(const std::filesystem::path& path) = 0;
  // A Conflict when a running program has the file loaded or open, so that replacing it must not
  // be tried (Windows). On POSIX a rename never disturbs a running program: always fine.
  virtual Result<void> check_not_in_use(const std::filesystem::path&) { return {}; }
  // nullopt when the file is not there or the platform cannot tell (then nothing is remembered).
  virtual std::optional<FileIdentity> identity(const std::filesystem::path&) { return std::nullopt; }
  // The space left on the filesystem of `path` (which exists); nullopt when the platform cannot
  // tell (then only the writes themselves find a full disk).
  virtual std::optional<FreeSpace> free_space(const std::filesystem::path&) { return std::nullopt; }
  // What the filesystem of the directory `dir` (which exists) can hold; nullopt when unknown.
  virtual std::optional<NameLimits> name_limits(const std::filesystem::path&) { return std::nullopt; }
};

// Archives are read only from regular files: a FIFO, a device (or a symlink to /dev/zero) or a
// directory is refused at once, before anything reads it. What the path names is looked at, then
// opened without blocking (O_NONBLOCK: a FIFO with no writer) and looked at again through the
// opened handle, so that what is checked is what was opened.
// `role` names the file in the messages ("the archive", "the manifest").
enum class FileRole { Archive, Manifest };
inline const char* describe(FileRole role) { return role == FileRole::Manifest ? "manifest" : "archive"; }
Result<void> check_regular_file(const std::filesystem::path& path, FileRole role = FileRole::Archive);

// The errno values of lstat(2) that mean nothing is at the path: a name too long for the
// filesystem cannot be there either (undo asks about such names after a failed install).
inline bool lstat_says_absent(int err) { return err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG; }

// Opens a file to append to (created, 0644, when absent): the journal and the logs. It is opened
// as itself: a symbolic link (or junction) at `path` is refused, never followed, and so are
// anything but a plain file (a FIFO, a device) and a file with other hard links, so that a name
// another user planted (a log under /tmp) cannot turn a write as root into one on another file.
Result<std::unique_ptr<OutputFile>> open_for_append(const std::filesystem::path& path);

// The real filesystem of this platform (filesystem_posix.cpp / filesystem_win32.cpp).
std::unique_ptr<FileSystem> make_real_filesystem();

}  // namespace cudnn_install
