// A FileSystem that passes through to a real one and fails the Nth mutating operation, as a
// disk-full error would (FailOnce) or as a crash would (Crash: that one and every later one fail,
// so nothing after the Nth happens, not even the automatic rollback).
#pragma once
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/filesystem.hpp"

namespace cudnn_install::test {

class FaultyFileSystem final : public FileSystem {
 public:
  enum class Mode { FailOnce, Crash };
  // fail_at = 0: never fail (count only).
  FaultyFileSystem(FileSystem& real, int fail_at, Mode mode) : real_(real), fail_at_(fail_at), mode_(mode) {}

  int operations() const { return ops_; }
  bool fired() const { return fired_; }
  // Called before every mutating operation with its name and path (recording tests).
  std::function<void(const char* op, const std::filesystem::path&)> before_op;

  Result<std::unique_ptr<OutputFile>> create_new(const std::filesystem::path& path, std::uint32_t mode) override;
  Result<void> make_symlink(const std::string& target, const std::filesystem::path& link) override;
  Result<void> rename(const std::filesystem::path& from, const std::filesystem::path& to, RenameMode mode) override;
  Result<void> remove(const std::filesystem::path& path) override;
  Result<void> make_dir(const std::filesystem::path& path) override;
  Result<void> sync_dir(const std::filesystem::path& path) override;
  Result<void> append_durable(const std::filesystem::path& path, std::string_view bytes) override;
  Result<std::optional<FileStat>> stat(const std::filesystem::path& path) override;
  Result<void> read_chunks(const std::filesystem::path& path, const ChunkReader& sink) override {
    return real_.read_chunks(path, sink);
  }
  Result<std::vector<std::string>> list_dir(const std::filesystem::path& path) override { return real_.list_dir(path); }
  Result<void> check_not_in_use(const std::filesystem::path& path) override { return real_.check_not_in_use(path); }
  std::optional<FileIdentity> identity(const std::filesystem::path& path) override { return real_.identity(path); }
  // The real filesystem's answer, unless a test gives its own (a nearly full disk).
  std::function<std::optional<FreeSpace>(const std::filesystem::path&)> space_answer;
  std::optional<FreeSpace> free_space(const std::filesystem::path& path) override {
    return space_answer ? space_answer(path) : real_.free_space(path);
  }
  std::optional<NameLimits> name_limits(const std::filesystem::path& dir) override { return real_.name_limits(dir); }

  // Makes every `op` ("lstat", "rename", "remove") that names `path` fail with `err`, from now on,
  // as the real filesystem reports that errno (lstat's "nothing there" errnos answer nullopt).
  struct ErrnoFault {
    std::string op;
    std::filesystem::path path;
    int err = 0;
  };
  std::optional<ErrnoFault> errno_fault;

  // Counts one operation; an error when this one must fail. Public for the file wrapper. Thread-safe:
  // a zip's entries are written by several threads at once.
  Result<void> tick(const char* op, const std::filesystem::path& path);

 private:
  FileSystem& real_;
  int fail_at_;
  Mode mode_;
  std::mutex mutex_;
  int ops_ = 0;
  bool fired_ = false;
};

// The operations 1..total an at-every-operation test injects at: every one, or under the ASan
// preset (CUDNN_INSTALL_TEST_OPERATION_STRIDE=3, where each run costs six times as much) one in
// three plus the ones named in `always` (the edges: the first write, commit). The dev preset, and
// the tests that must see every checkpoint, try all.
std::vector<int> operations_to_try(int total, std::initializer_list<int> always = {});

}  // namespace cudnn_install::test
