// Dry runs of the commands that change a toolkit (--rollback, uninstall): the real code runs on a
// FileSystem that reads the real tree and remembers every change instead of making it, so the
// preview is what the real run would do, not a second description of it that could drift.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/env.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/plan.hpp"

namespace cudnn_install {

// Whether this user may change `path`: for a directory, create and remove entries in it; for a
// file, write it. True when the platform cannot tell (then a dry run predicts no refusal).
// preview_access_posix.cpp / preview_access_win32.cpp.
bool may_write(const std::filesystem::path& path);
using MayWrite = std::function<bool(const std::filesystem::path&)>;

// One change the real run would make, in the order it would make it.
struct PreviewChange {
  enum class Kind { Create, Symlink, Move, Remove, MakeDir, Append };
  Kind kind = Kind::Create;
  std::filesystem::path path;  // Move: the source
  std::filesystem::path to;    // Move: the destination
  std::uint64_t bytes = 0;     // the size of the file created, moved or removed
};

// A FileSystem over `real` that writes nothing. Later reads see the earlier changes (a removed
// file is gone, a moved one is at its new name, an appended journal has its records), so code that
// reads back what it wrote behaves as in the real run. A change the current user could not make
// fails as the real one would (may_write), ending the preview where the real run ends.
class PreviewFileSystem final : public FileSystem {
 public:
  explicit PreviewFileSystem(FileSystem& real, MayWrite may = may_write) : real_(real), may_write_(std::move(may)) {}
  const std::vector<PreviewChange>& changes() const { return changes_; }

  Result<std::unique_ptr<OutputFile>> create_new(const std::filesystem::path& path, std::uint32_t mode) override;
  Result<void> make_symlink(const std::string& target, const std::filesystem::path& link) override;
  Result<void> rename(const std::filesystem::path& from, const std::filesystem::path& to, RenameMode mode) override;
  Result<void> remove(const std::filesystem::path& path) override;
  Result<void> make_dir(const std::filesystem::path& path) override;
  Result<void> sync_dir(const std::filesystem::path& path) override;
  Result<void> append_durable(const std::filesystem::path& path, std::string_view bytes) override;
  Result<std::optional<FileStat>> stat(const std::filesystem::path& path) override;
  Result<void> read_chunks(const std::filesystem::path& path, const ChunkReader& sink) override;
  Result<std::vector<std::string>> list_dir(const std::filesystem::path& path) override;
  Result<void> check_not_in_use(const std::filesystem::path& path) override { return real_.check_not_in_use(path); }
  std::optional<FileIdentity> identity(const std::filesystem::path& path) override;
  std::optional<FreeSpace> free_space(const std::filesystem::path& path) override { return real_.free_space(path); }
  std::optional<NameLimits> name_limits(const std::filesystem::path& dir) override { return real_.name_limits(dir); }

  // What is at `path` in the overlay (nullopt: the real tree decides).
  struct Node {
    std::optional<FileStat> stat;        // nullopt: removed
    std::optional<std::string> content;  // appended records, or nothing known
    std::filesystem::path source;        // a moved real file: where its bytes still are
  };
  void set_size(const std::filesystem::path& path, std::uint64_t size);

 private:
  std::optional<Node> overlaid(const std::filesystem::path& path) const;
  Result<void> check_writable(const std::filesystem::path& path, const char* what);
  FileSystem& real_;
  MayWrite may_write_;
  std::map<std::filesystem::path, Node> nodes_;
  std::vector<PreviewChange> changes_;
};

// An EnvStore over `real` (nullptr: none on this platform) that remembers writes instead of making them.
class PreviewEnvStore final : public EnvStore {
 public:
  explicit PreviewEnvStore(EnvStore* real) : real_(real) {}
  Result<std::optional<RegValue>> read(EnvScope scope, std::string_view name) override;
  Result<void> write(EnvScope scope, std::string_view name, const RegValue& value) override;
  Result<void> erase(EnvScope scope, std::string_view name) override;
  void broadcast_change() override {}
  // The values that would be written (nullopt: erased), by scope and name.
  const std::map<std::pair<EnvScope, std::string>, std::optional<RegValue>>& written() const { return written_; }

 private:
  EnvStore* real_;
  std::map<std::pair<EnvScope, std::string>, std::optional<RegValue>> written_;
};

}  // namespace cudnn_install

namespace cudnn_install {

// The changes as lines for people, toolkit files relative to `root`: what is restored, removed,
// created or moved, with sizes; the state directory's own bookkeeping as one line at the end.
std::vector<std::string> describe_changes(const std::vector<PreviewChange>& changes, const std::filesystem::path& root);

// Whether this user could take the toolkit's state lock (the first write of every change):
// an Io error as the real run would give, else nothing.
Result<void> check_state_lock_possible(FileSystem& fs, const std::filesystem::path& root,
                                       const MayWrite& may = may_write);

// A directory the plan writes in (or removes from) that a symlink or junction (lib64 -> /elsewhere)
// puts outside the toolkit's real path: the install's confirmation names it, and without a
// terminal only --yes lets the real run write there (issue 18, class 10).
struct OutsideDir {
  std::string dir;                  // root-relative, as the plan names it ("lib64")
  std::filesystem::path real;       // where it really is
  std::filesystem::path real_root;  // the toolkit's real path
  std::string describe() const;     // "lib64/ is /elsewhere, outside the toolkit's real path /opt/cuda"
};
// Every such directory of the plan's toolkit targets (absolute targets, like the loader
// configuration, are the tool's own business and not counted), each once.
std::vector<OutsideDir> dirs_outside_real_root(const std::filesystem::path& root, const Plan& plan);
// The same for root-relative targets (absolute ones are skipped).
std::vector<OutsideDir> dirs_outside_real_root(const std::filesystem::path& root,
                                               const std::vector<std::string>& targets);
// Which committed transactions an undo reverses: --rollback the newest, uninstall every one.
enum class UndoScope { Newest, All };
// The directories outside the toolkit's real path that undoing the transactions of `scope` removes
// files from or restores files into, and those of `then`, a plan applied after the undo (uninstall
// --force's removal): --rollback and uninstall ask about them as an install does.
Result<std::vector<OutsideDir>> dirs_outside_real_root_of_undo(FileSystem& fs, const std::filesystem::path& root,
                                                               UndoScope scope, const Plan& then = {});

// What a dry run of an install foresees of the real run, beyond the plan itself.
struct InstallForecast {
  std::vector<std::string> warnings;  // e.g. targets that symlinks put outside the toolkit's real path
};
// Checks, without writing, what the real install of `plan` would run into first: the state lock,
// a target directory (or the loader configuration's) the user may not write, too little free space
// on a filesystem it writes on (asked of `fs`, as the real install does).
// The error is the one the real run would end with (ErrorCode::Io, exit 4).
Result<InstallForecast> forecast_install(FileSystem& fs, const std::filesystem::path& root, const Plan& plan,
                                         const MayWrite& may = may_write);

}  // namespace cudnn_install
