// POSIX FileSystem: O_EXCL creation, fsync of files and directories, rename(2) for atomic replace.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <memory>

#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/filesystem.hpp"
#include "filesystem_refusals.hpp"
#include "filesystem_rename_posix.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// How much of a file read_chunks reads at a time: files are read whole (CRC-32s of installed libraries).
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

std::unexpected<Error> os_error(const std::string& what, const fs::path& path, int err = errno) {
  std::string hint;
  if (err == ENOSPC)
    hint = " (the disk is full)";
  else if (err == EACCES || err == EPERM)
    hint = " (permission denied: run with the rights to change the toolkit)";
  else if (err == EXDEV)
    hint = " (the state directory is on another filesystem)";
  else if (err == ELOOP)
    hint = " (a symbolic link: cudnn-install does not write through one)";
  return fail(ErrorCode::Io, what + " '" + path.string() + "': " + std::strerror(err) + hint, path.string());
}

class PosixOutputFile final : public OutputFile {
 public:
  PosixOutputFile(int fd, fs::path path) : fd_(fd), path_(std::move(path)) {}
  ~PosixOutputFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Result<void> write(std::span<const char> bytes) override {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return os_error("cannot write", path_);
      bytes = bytes.subspan(static_cast<size_t>(n));
    }
    return {};
  }
  Result<void> sync_and_close() override {
    if (::fsync(fd_) != 0) return os_error("cannot flush", path_);
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return os_error("cannot close", path_);
    return {};
  }

 private:
  int fd_;
  fs::path path_;
};

std::unexpected<Error> already_there(const fs::path& from, const fs::path& to) {
  return fail(ErrorCode::Conflict,
              "cannot move '" + from.string() + "' to '" + to.string() +
                  "': something is already there (it appeared after cudnn-install looked); it was not replaced",
              to.string());
}

}  // namespace

namespace posix {

NoReplaceCalls system_no_replace_calls() {
  NoReplaceCalls calls;
#ifdef RENAME_NOREPLACE
  calls.rename_noreplace = [](const char* from, const char* to) {
    return ::renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
  };
#else
  calls.rename_noreplace = [](const char*, const char*) { return errno = ENOSYS, -1; };
#endif
  calls.link = [](const char* from, const char* to) { return ::linkat(AT_FDCWD, from, AT_FDCWD, to, 0); };
  calls.unlink = [](const char* path) { return ::unlink(path); };
  calls.lstat = [](const char* path) {
    struct stat st;
    return ::lstat(path, &st);
  };
  calls.rename = [](const char* from, const char* to) { return ::rename(from, to); };
  return calls;
}

// A rename that never replaces what is at `to`. renameat2(RENAME_NOREPLACE) does it atomically
// (Linux 3.15+). Where the filesystem does not support it (EINVAL: some network and FUSE
// filesystems; ENOSYS: an old kernel), link(2) + unlink(2) does the same without replacing either:
// link fails with EEXIST when anything is at `to`. A crash between the two leaves the file under
// both names; undo recognises that (same inode) and removes both. Only where the filesystem has
// no hard links either (FAT) is `to` checked with lstat just before rename(2): the one place
// where a file appearing in that instant could still be replaced.
Result<void> rename_no_replace(const fs::path& from, const fs::path& to, const NoReplaceCalls& calls) {
  if (calls.rename_noreplace(from.c_str(), to.c_str()) == 0) return {};
  if (errno == EEXIST) return already_there(from, to);
  if (errno != EINVAL && errno != ENOSYS) return os_error("cannot move '" + from.string() + "' to", to);
  if (calls.link(from.c_str(), to.c_str()) == 0) {
    if (calls.unlink(from.c_str()) == 0) return {};
    int err = errno;
    calls.unlink(to.c_str());  // the link just made: `to` was empty before it
    return os_error("cannot remove", from, err);
  }
  if (errno == EEXIST) return already_there(from, to);
  if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS && errno != EMLINK)
    return os_error("cannot move '" + from.string() + "' to", to);
  if (calls.lstat(to.c_str()) == 0) return already_there(from, to);
  if (calls.rename(from.c_str(), to.c_str()) != 0) return os_error("cannot move '" + from.string() + "' to", to);
  return {};
}

}  // namespace posix

namespace {

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<OutputFile>> create_new(const fs::path& path, std::uint32_t mode) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return os_error("cannot create", path);
    if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) {
      int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return os_error("cannot set the mode of", path, err);
    }
    return std::make_unique<PosixOutputFile>(fd, path);
  }
  Result<void> make_symlink(const std::string& target, const fs::path& link) override {
    if (::symlink(target.c_str(), link.c_str()) != 0) return os_error("cannot create symlink", link);
    return {};
  }
  Result<void> rename(const fs::path& from, const fs::path& to, RenameMode mode) override {
    if (mode == RenameMode::NoReplace) return posix::rename_no_replace(from, to);
    if (::rename(from.c_str(), to.c_str()) != 0) return os_error("cannot move '" + from.string() + "' to", to);
    return {};
  }
  Result<void> remove(const fs::path& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      if (::rmdir(path.c_str()) != 0) return os_error("cannot remove directory", path);
    } else if (::unlink(path.c_str()) != 0) {
      return os_error("cannot remove", path);
    }
    return {};
  }
  Result<void> make_dir(const fs::path& path) override {
    if (::mkdir(path.c_str(), 0755) != 0) return os_error("cannot create directory", path);
    return {};
  }
  Result<void> sync_dir(const fs::path& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return os_error("cannot open directory", path);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return os_error("cannot flush directory", path, err);
    return {};
  }
  Result<void> append_durable(const fs::path& path, std::string_view bytes) override {
    TRY_ASSIGN(auto file, open_for_append(path));
    TRY(file->write(bytes));
    return file->sync_and_close();
  }
  Result<std::optional<FileStat>> stat(const fs::path& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (lstat_says_absent(errno)) return std::optional<FileStat>();
      return os_error("cannot inspect", path);
    }
    FileStat out;
    out.mode = st.st_mode & 07777;
    out.size = static_cast<std::uint64_t>(st.st_size);
    if (S_ISLNK(st.st_mode)) {
      out.type = EntryType::Symlink;
      std::error_code ec;
      out.link_target = fs::read_symlink(path, ec).string();
    } else if (S_ISDIR(st.st_mode)) {
      out.type = EntryType::Directory;
    } else if (!S_ISREG(st.st_mode)) {
      out.type = EntryType::Other;
    }
    return std::optional(out);
  }
  std::optional<FileIdentity> identity(const fs::path& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return std::nullopt;
    auto ns = [](const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
    return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                        static_cast<std::uint64_t>(st.st_size), ns(st.st_mtim), ns(st.st_ctim)};
  }
  std::optional<FreeSpace> free_space(const fs::path& path) override {
    struct statvfs vfs;
    struct stat st;
    if (::statvfs(path.c_str(), &vfs) != 0 || ::stat(path.c_str(), &st) != 0) return std::nullopt;
    std::uint64_t unit = vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize;
    // root may also use the blocks the filesystem reserves for it (f_bfree); others only f_bavail.
    std::uint64_t blocks = ::geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
    return FreeSpace{static_cast<std::uint64_t>(st.st_dev), blocks * unit, unit ? unit : 4096};
  }
  std::optional<NameLimits> name_limits(const fs::path& dir) override {
    errno = 0;
    long name = ::pathconf(dir.c_str(), _PC_NAME_MAX), path = ::pathconf(dir.c_str(), _PC_PATH_MAX);
    if (name <= 0 && errno != 0) return std::nullopt;  // -1 without errno: no limit
    NameLimits limits;
    if (name > 0) limits.name_max = static_cast<std::uint64_t>(name);
    if (path > 0) limits.path_max = static_cast<std::uint64_t>(path);
    return limits;
  }
  Result<void> read_chunks(const fs::path& path, const ChunkReader& sink) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return os_error("cannot read", path);
    auto buf = std::make_unique_for_overwrite<char[]>(kReadChunk);
    ssize_t n = 0;
    while ((n = ::read(fd, buf.get(), kReadChunk)) > 0 || (n < 0 && errno == EINTR))
      if (n > 0) sink(std::string_view(buf.get(), static_cast<std::size_t>(n)));
    int err = errno;
    ::close(fd);
    if (n < 0) return os_error("cannot read", path, err);
    return {};
  }
  Result<std::vector<std::string>> list_dir(const fs::path& path) override {
    DIR* dir = ::opendir(path.c_str());
    if (!dir) return os_error("cannot list", path);
    std::vector<std::string> names;
    while (dirent* e = ::readdir(dir)) {
      std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    return names;
  }
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::unexpected<Error> not_regular(const fs::path& path, mode_t mode, FileRole role) {
  std::string what = describe(role);
  return fail(ErrorCode::Usage,
              "'" + path.string() + "' is " + kind_of(mode) + ", not a regular file: cudnn-install reads " + what +
                  "s only from regular files. Save the " + what + " to a file first and pass that file's path.",
              path.string());
}

}  // namespace

Result<void> check_regular_file(const fs::path& path, FileRole role) {
  std::string what = describe(role);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return fail(ErrorCode::Usage,
                "'" + path.string() + "' " +
                    (errno == ENOENT ? "does not exist: check the " + what + "'s path"
                                     : "cannot be read: " + std::string(std::strerror(errno))),
                path.string());
  if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode, role);
  // Replaced by a FIFO since? O_NONBLOCK opens one without waiting for a writer; fstat tells.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return fail(ErrorCode::Usage, "cannot open the " + what + " '" + path.string() + "': " + std::strerror(errno),
                path.string());
  int rc = ::fstat(fd, &st);
  ::close(fd);
  if (rc != 0 || !S_ISREG(st.st_mode)) return not_regular(path, rc != 0 ? 0 : st.st_mode, role);
  return {};
}

// O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of waiting forever; so does a
// device without its hardware.
Result<std::unique_ptr<OutputFile>> open_for_append(const fs::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) return errno == ENXIO ? not_a_plain_file(path) : os_error("cannot open", path);
  auto file = std::make_unique<PosixOutputFile>(fd, path);
  struct stat st;
  if (::fstat(fd, &st) != 0) return os_error("cannot inspect", path);
  if (!S_ISREG(st.st_mode)) return not_a_plain_file(path);
  if (st.st_nlink > 1) return has_other_names(path);
  return file;
}

std::unique_ptr<FileSystem> make_real_filesystem() { return std::make_unique<PosixFileSystem>(); }

}  // namespace cudnn_install
