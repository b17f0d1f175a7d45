// Windows FileSystem: CREATE_NEW for creation, FlushFileBuffers for durability, MoveFileExW with
// MOVEFILE_WRITE_THROUGH for the atomic replace. NTFS journals its metadata, and a directory
// handle cannot be flushed by a normal user, so sync_dir has nothing to do here.
#include <windows.h>

#include <spdlog/spdlog.h>

#include <memory>

#include "base/try.hpp"
#include "base/util.hpp"
#include "base/win32_util.hpp"
#include "cudnn_install/filesystem.hpp"
#include "filesystem_refusals.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// How much of a file read_chunks reads at a time: files are read whole (CRC-32s of installed libraries).
constexpr std::size_t kReadChunk = std::size_t{1} << 20;

std::unexpected<Error> os_error(const std::string& what, const fs::path& path, DWORD err = GetLastError()) {
  std::string hint;
  if (err == ERROR_DISK_FULL || err == ERROR_HANDLE_DISK_FULL)
    hint = " (the disk is full)";
  else if (err == ERROR_ACCESS_DENIED)
    hint = " (access denied: " + std::string(win32::kElevationHint) + ")";
  else if (err == ERROR_SHARING_VIOLATION || err == ERROR_USER_MAPPED_FILE || err == ERROR_LOCK_VIOLATION)
    hint = " (the file is in use by a running program: close it, or pass --replace-in-use)";
  return fail(ErrorCode::Io, what + " '" + path.string() + "': " + win32::error_text(err) + hint, path.string());
}

// The state files and logs are opened as themselves (FILE_FLAG_OPEN_REPARSE_POINT): a symlink or
// junction there is refused, never followed.
Result<void> refuse_reparse_point(const BY_HANDLE_FILE_INFORMATION& info, const fs::path& path) {
  if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
    return fail(ErrorCode::Conflict,
                "'" + path.string() +
                    "' is a symbolic link or junction: cudnn-install does not write or read through one. "
                    "Look at it, remove it and run again.",
                path.string());
  return {};
}

Result<void> refuse_reparse_point(HANDLE h, const fs::path& path) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) return os_error("cannot inspect", path);
  return refuse_reparse_point(info, path);
}

class Win32OutputFile final : public OutputFile {
 public:
  Win32OutputFile(HANDLE h, fs::path path) : h_(h), path_(std::move(path)) {}
  Result<void> write(std::span<const char> bytes) override {
    while (!bytes.empty()) {
      DWORD chunk = static_cast<DWORD>(std::min<size_t>(bytes.size(), 1u << 30)), written = 0;
      if (!WriteFile(h_.get(), bytes.data(), chunk, &written, nullptr)) return os_error("cannot write", path_);
      bytes = bytes.subspan(written);
    }
    return {};
  }
  Result<void> sync_and_close() override {
    if (!FlushFileBuffers(h_.get())) return os_error("cannot flush", path_);
    h_.reset();
    return {};
  }

 private:
  win32::Handle h_;
  fs::path path_;
};

// DeleteFileW refuses a read-only file (ERROR_ACCESS_DENIED, as for a loaded DLL): a file the
// install added and someone marked read-only since is still the install's to remove. The attribute
// comes back when the delete fails anyway, so a failed remove changes nothing. Never on a symlink or
// junction: SetFileAttributesW would change the attributes of what it points to, anywhere.
bool remove_read_only(const fs::path& path, DWORD attributes) {
  if (attributes == INVALID_FILE_ATTRIBUTES || !(attributes & FILE_ATTRIBUTE_READONLY) ||
      (attributes & FILE_ATTRIBUTE_REPARSE_POINT))
    return false;
  if (!SetFileAttributesW(path.c_str(), attributes & ~DWORD{FILE_ATTRIBUTE_READONLY})) return false;
  if (DeleteFileW(path.c_str())) return true;
  DWORD err = GetLastError();
  SetFileAttributesW(path.c_str(), attributes);
  SetLastError(err);
  return false;
}

class Win32FileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<OutputFile>> create_new(const fs::path& path, std::uint32_t) override {
    HANDLE h = CreateFileW(path.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return os_error("cannot create", path);
    return std::make_unique<Win32OutputFile>(h, path);
  }
  Result<void> make_symlink(const std::string&, const fs::path& link) override {
    return fail(ErrorCode::UnsafeEntry,
                "symbolic links are not installed on Windows (no Windows cuDNN archive has one)", link.string());
  }
  // NoReplace: without MOVEFILE_REPLACE_EXISTING, MoveFileExW fails (ERROR_ALREADY_EXISTS) when
  // anything is at `to`, and leaves it as it is: atomic, no check beforehand.
  Result<void> rename(const fs::path& from, const fs::path& to, RenameMode mode) override {
    DWORD flags = MOVEFILE_WRITE_THROUGH | (mode == RenameMode::Replace ? MOVEFILE_REPLACE_EXISTING : 0);
    if (MoveFileExW(from.c_str(), to.c_str(), flags)) return {};
    DWORD err = GetLastError();
    if (mode == RenameMode::NoReplace && (err == ERROR_ALREADY_EXISTS || err == ERROR_FILE_EXISTS))
      return fail(ErrorCode::Conflict,
                  "cannot move '" + from.string() + "' to '" + to.string() +
                      "': something is already there (it appeared after cudnn-install looked); it was not replaced",
                  to.string());
    return os_error("cannot move '" + from.string() + "' to", to, err);
  }
  // A file a running program still has loaded (a DLL moved aside by --replace-in-use) cannot be
  // deleted: it, and then its directory, are scheduled for deletion at the next reboot instead.
  Result<void> remove(const fs::path& path) override {
    DWORD attributes = GetFileAttributesW(path.c_str());
    bool dir = attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY);
    if (dir ? RemoveDirectoryW(path.c_str()) : DeleteFileW(path.c_str())) return {};
    DWORD err = GetLastError();
    if (!dir && err == ERROR_ACCESS_DENIED && remove_read_only(path, attributes)) return {};
    bool busy = err == ERROR_ACCESS_DENIED || err == ERROR_SHARING_VIOLATION || err == ERROR_DIR_NOT_EMPTY;
    if (busy && MoveFileExW(path.c_str(), nullptr, MOVEFILE_DELAY_UNTIL_REBOOT)) {
      spdlog::warn("'{}' is still in use: it will be deleted at the next reboot", path.string());
      return {};
    }
    return os_error("cannot remove", path, err);
  }
  Result<void> check_not_in_use(const fs::path& path) override {
    // A loaded DLL or an open file refuses an exclusive open; a free file does not.
    HANDLE h = CreateFileW(path.c_str(), FILE_WRITE_DATA, 0, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h != INVALID_HANDLE_VALUE) {
      CloseHandle(h);
      return {};
    }
    DWORD err = GetLastError();
    if (err != ERROR_SHARING_VIOLATION && err != ERROR_LOCK_VIOLATION && err != ERROR_USER_MAPPED_FILE) return {};
    return fail(
        ErrorCode::Conflict,
        "'" + path.string() +
            "' is in use by a running program, so it cannot be replaced: close the programs "
            "that use cuDNN (cudnn-install names them when Windows can tell), or pass --replace-in-use to move it "
            "aside (the programs keep the old one until they restart)",
        path.string());
  }
  Result<void> make_dir(const fs::path& path) override {
    if (!CreateDirectoryW(path.c_str(), nullptr)) return os_error("cannot create directory", path);
    return {};
  }
  Result<void> sync_dir(const fs::path&) override { return {}; }
  Result<void> append_durable(const fs::path& path, std::string_view bytes) override {
    TRY_ASSIGN(auto file, open_for_append(path));
    TRY(file->write(bytes));
    return file->sync_and_close();
  }
  Result<std::optional<FileStat>> stat(const fs::path& path) override {
    WIN32_FILE_ATTRIBUTE_DATA data;
    if (!GetFileAttributesExW(path.c_str(), GetFileExInfoStandard, &data)) {
      DWORD err = GetLastError();
      if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND) return std::optional<FileStat>();
      return os_error("cannot inspect", path, err);
    }
    FileStat out;
    out.size = (static_cast<std::uint64_t>(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
    out.mode = (data.dwFileAttributes & FILE_ATTRIBUTE_READONLY) ? 0444 : 0644;
    if (data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
      out.type = EntryType::Symlink;
    else if (data.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
      out.type = EntryType::Directory;
    return std::optional(out);
  }
  // Volume serial and file index, size, last write and change time (FILE_BASIC_INFO.ChangeTime).
  std::optional<FileIdentity> identity(const fs::path& path) override {
    win32::Handle h(CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                                FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    BY_HANDLE_FILE_INFORMATION info;
    FILE_BASIC_INFO basic;
    if (!h.valid() || !GetFileInformationByHandle(h.get(), &info) ||
        !GetFileInformationByHandleEx(h.get(), FileBasicInfo, &basic, sizeof basic))
      return std::nullopt;
    auto join = [](DWORD high, DWORD low) { return (static_cast<std::uint64_t>(high) << 32) | low; };
    return FileIdentity{info.dwVolumeSerialNumber, join(info.nFileIndexHigh, info.nFileIndexLow),
                        join(info.nFileSizeHigh, info.nFileSizeLow), basic.LastWriteTime.QuadPart,
                        basic.ChangeTime.QuadPart};
  }
  std::optional<FreeSpace> free_space(const fs::path& path) override {
    ULARGE_INTEGER available;
    wchar_t volume[MAX_PATH + 1];
    DWORD serial = 0;
    if (!GetDiskFreeSpaceExW(path.c_str(), &available, nullptr, nullptr) ||
        !GetVolumePathNameW(path.c_str(), volume, MAX_PATH + 1) ||
        !GetVolumeInformationW(volume, nullptr, 0, &serial, nullptr, nullptr, nullptr, 0))
      return std::nullopt;
    return FreeSpace{serial, available.QuadPart, 4096};
  }
  // The tool passes plain paths (no \\?\ prefix) to the Win32 API, which holds MAX_PATH of them.
  std::optional<NameLimits> name_limits(const fs::path&) override { return NameLimits{255, MAX_PATH}; }
  Result<void> read_chunks(const fs::path& path, const ChunkReader& sink) override {
    win32::Handle h(CreateFileW(path.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                nullptr, OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
    if (!h.valid()) return os_error("cannot read", path);
    TRY(refuse_reparse_point(h.get(), path));
    auto buf = std::make_unique_for_overwrite<char[]>(kReadChunk);
    for (DWORD n = 0;; sink(std::string_view(buf.get(), n))) {
      if (!ReadFile(h.get(), buf.get(), static_cast<DWORD>(kReadChunk), &n, nullptr))
        return os_error("cannot read", path);
      if (n == 0) return {};
    }
  }
  Result<std::vector<std::string>> list_dir(const fs::path& path) override {
    WIN32_FIND_DATAW found;
    HANDLE h = FindFirstFileW((path / L"*").c_str(), &found);
    if (h == INVALID_HANDLE_VALUE) return os_error("cannot list", path);
    std::vector<std::string> names;
    do {
      std::wstring name = found.cFileName;
      if (name != L"." && name != L"..") names.push_back(win32::narrow(name));
    } while (FindNextFileW(h, &found));
    FindClose(h);
    return names;
  }
};

}  // namespace

// A regular file is a disk file that is not a directory; a named pipe, a console or NUL is not.
Result<void> check_regular_file(const fs::path& path, FileRole role) {
  std::string what = describe(role);
  auto refuse = [&](const std::string& why) -> Result<void> {
    return fail(ErrorCode::Usage,
                "'" + path.string() + "' " + why + ": cudnn-install reads " + what +
                    "s only from regular files. Save the " + what + " to a file first and pass that file's path.",
                path.string());
  };
  win32::Handle h(CreateFileW(path.c_str(), FILE_READ_ATTRIBUTES,
                              FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                              FILE_FLAG_BACKUP_SEMANTICS, nullptr));
  if (!h.valid()) {
    DWORD err = GetLastError();
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
      return fail(ErrorCode::Usage, "'" + path.string() + "' does not exist: check the " + what + "'s path",
                  path.string());
    return refuse("cannot be opened (" + win32::error_text(err) + ")");
  }
  BY_HANDLE_FILE_INFORMATION info;
  if (GetFileType(h.get()) != FILE_TYPE_DISK || !GetFileInformationByHandle(h.get(), &info))
    return refuse("is a device or a pipe, not a regular file");
  if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) return refuse("is a directory, not a regular file");
  return {};
}

// FILE_FLAG_OPEN_REPARSE_POINT opens a symbolic link or junction as itself, which is then refused.
Result<std::unique_ptr<OutputFile>> open_for_append(const fs::path& path) {
  HANDLE h = CreateFileW(path.c_str(), FILE_APPEND_DATA | FILE_READ_ATTRIBUTES, FILE_SHARE_READ, nullptr, OPEN_ALWAYS,
                         FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (h == INVALID_HANDLE_VALUE) {
    DWORD err = GetLastError();  // a folder cannot be opened this way: say so, not "access denied"
    DWORD attributes = GetFileAttributesW(path.c_str());
    if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY)) return not_a_plain_file(path);
    return os_error("cannot open", path, err);
  }
  auto file = std::make_unique<Win32OutputFile>(h, path);
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) return os_error("cannot inspect", path);
  TRY(refuse_reparse_point(info, path));
  if (GetFileType(h) != FILE_TYPE_DISK || (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
    return not_a_plain_file(path);
  if (info.nNumberOfLinks > 1) return has_other_names(path);
  return file;
}

std::unique_ptr<FileSystem> make_real_filesystem() { return std::make_unique<Win32FileSystem>(); }

}  // namespace cudnn_install
