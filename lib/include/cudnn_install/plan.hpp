// Stage 3: the install plan. make_plan is PURE: everything it needs (archive listing, toolkit,
// current tree state) is read beforehand, so it is tested with tables and no filesystem.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/archive.hpp"
#include "cudnn_install/env.hpp"
#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/toolkit.hpp"

namespace cudnn_install {

// What is at a target path now (lstat-like: symlinks are not followed).
struct ExistingFile {
  EntryType type = EntryType::File;
  std::uint64_t size = 0;
  std::uint32_t mode = 0;
  std::string link_target;
  std::optional<std::uint32_t> crc32;  // computed only where the size matches the new file
  // A regular file's identity when it was scanned: the swap replaces or removes it only while it
  // is still that file (nullopt: the platform cannot tell; then only its kind is compared).
  std::optional<FileIdentity> identity;
};

struct TreeState {
  std::map<std::string, ExistingFile> targets;      // root-relative target path -> existing file
  std::map<std::string, ExistingFile> cudnn_files;  // every cudnn* file in the target directories
  std::vector<std::string> missing_dirs;            // target directories that do not exist yet
  std::size_t files_read = 0;                       // read to compare (the others' CRC-32s came from stamps)
  // Per target directory (root-relative): the names its filesystem holds (asked of the directory,
  // or of its nearest existing parent). A directory missing here is not checked.
  std::map<std::string, NameLimits> name_limits;
};

enum class Action {
  Create,         // nothing there yet
  Overwrite,      // an older/different file is replaced (the old one is backed up)
  SkipIdentical,  // same size and CRC-32 (or same link target): not written at all
  Remove,         // a stale file of the same cuDNN major (backed up, restored by --rollback)
  KeepOther,      // a file of another cuDNN major: left alone, reported
};

struct Step {
  Action action = Action::Create;
  std::string target;  // root-relative, '/'-separated
  std::string entry;   // archive entry name; empty for Remove/KeepOther
  Role role = Role::Unknown;
  EntryType type = EntryType::File;
  std::uint64_t size = 0;
  std::uint32_t mode = 0;
  std::string link_target;
  std::string reason;   // for Remove/KeepOther/Overwrite: why
  std::string content;  // generated files (Role::LoaderConfig): the bytes to write
  // Overwrite/Remove: what the scan found at the target. The swap checks that the same file is
  // still there before moving it to the backup (nullopt: generated files, checked by content).
  std::optional<ExistingFile> old = std::nullopt;
};

struct Plan {
  std::string toolkit_root;
  std::string archive_name;
  std::string cudnn_version;
  std::string cuda_version;
  std::vector<Step> steps;
  std::vector<std::string> dirs_to_create;  // root-relative, parents first
  std::vector<std::string> notes;           // entries not installed, warnings
  std::uint64_t bytes_to_write = 0;
  std::optional<EnvEdit> env_edit;  // Windows: the registry PATH change, made in the same transaction
  std::string env_entry;            // the directory it puts on PATH (UTF-8)

  std::size_t count(Action a) const;
  bool changes_anything() const;
};

// A file the tool writes itself (not from the archive), e.g. the ld.so.conf.d entry.
struct GeneratedFile {
  std::string target;  // absolute path (outside the toolkit)
  std::string content;
  std::optional<std::string> current;  // what is there now
};

struct PlanOptions {
  enum class StaleFiles { Remove, Keep } stale = StaleFiles::Remove;
  std::vector<GeneratedFile> generated;
  std::optional<EnvEdit> env_edit;  // a PATH change to make (nullopt: none needed, or --no-path)
  std::string env_entry;
};

Result<Plan> make_plan(const ArchiveInfo& archive, const Toolkit& toolkit, const TreeState& tree,
                       const PlanOptions& options);

// Why the target filesystem cannot hold `target` (root-relative) and the tool's temporary beside
// it, or nullopt when it can: a file name longer than name_max, or a whole path reaching path_max.
std::optional<std::string> name_does_not_fit(const std::filesystem::path& root, const std::string& target,
                                             const NameLimits& limits);

// Root-relative target path of an entry (empty when the entry is not installed).
std::string target_of(const Entry& entry, const Toolkit& toolkit);
// The cuDNN major a file name belongs to ("cudnn64_8.dll" -> 8, "libcudnn_ops.so.9.1.0" -> 9).
std::optional<int> cudnn_major_of(const std::string& file_name);

// I/O: reads the current state of every target and cudnn* file in the target directories. A file
// the same size as the new one is compared by CRC-32: its stamp's (file_stamps.hpp), if `known`
// has one, or else the file is read.
Result<TreeState> scan_tree(FileSystem& fs, const ArchiveInfo& archive, const Toolkit& toolkit,
                            const KnownCrc& known = {});

// Every cudnn* file in the toolkit's header and library directories (root-relative), with what it is.
std::map<std::string, ExistingFile> cudnn_files_in(FileSystem& fs, const Toolkit& toolkit);
// A plan that removes these files (uninstall --force): each is backed up, --rollback restores it.
Plan removal_plan(const Toolkit& toolkit, const std::map<std::string, ExistingFile>& files);

const char* to_string(Action a);

}  // namespace cudnn_install
