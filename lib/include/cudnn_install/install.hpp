// The install as library operations, as vcpkg-tool's commands are: the CLI turns its flags into an
// InstallRequest, calls install() (or plan_install() for a dry run) and prints what comes back; the
// tests call the very same functions on a fault-injecting filesystem, so that every write an install
// makes (tree, journal, spool, stamps.json, archives.json) is under their faults.
//
//   plan_install: the archive inspected (from the toolkit's memo when it is the same file) and its
//                 sha256 checked, the tree scanned, the plan made; writes only the spool.
//   install:      plan_install, `show`, `approve` (the caller's prompt), the transaction, then the
//                 stamps and the memo (caches: failing to write them costs only a warning).
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/archive.hpp"
#include "cudnn_install/archive_identity.hpp"
#include "cudnn_install/integrity.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"
#include "cudnn_install/windows_runtime.hpp"

namespace cudnn_install {

// A real install copies a tar.xz's files into the toolkit's spool while listing it (one decoding
// pass); a dry run reads the archive into nothing.
enum class Spooling { IntoToolkit, None };

struct InstallRequest {
  std::filesystem::path archive;
  std::optional<std::filesystem::path> manifest;  // a local NVIDIA manifest vouching for the archive
  // Which NVIDIA archive it is (identify_archive, which the CLI calls to choose the toolkit by its
  // CUDA major); nullopt: plan_install identifies it itself.
  std::optional<ArchiveIdentity> identity;
  Spooling spooling = Spooling::IntoToolkit;
  // How the transaction runs: holders, threads, progress, interrupts, the PATH store, the clock.
  // Its sha256 is the one install() computed.
  ApplyOptions apply;
};

// The environment step of an install: the loader configuration on Linux, the PATH on Windows.
struct EnvStep {
  std::vector<GeneratedFile> files;  // Linux: the ld.so.conf.d entry, installed by the transaction
  std::optional<EnvEdit> edit;       // Windows: the PATH value, changed by the transaction
  std::string entry;                 // the directory the edit puts on PATH
  std::vector<std::string> lines;    // what the plan shows: the proposal, shadowing copies
};

// What the install needs from the machine besides the filesystem; every member may be empty.
struct InstallServices {
  explicit InstallServices(FileSystem& filesystem) : fs(filesystem) {}  // the rest: none, set as needed
  FileSystem& fs;
  std::function<Result<EnvStep>(const Toolkit&, int cudnn_major)> plan_env;  // empty: no environment step
  std::function<WindowsRuntimeEvidence(const Toolkit&)> runtime_evidence;    // empty: not looked for
  ReadProgress read_progress;  // a tar.xz decoded (the longer of its two passes)
  HashProgress hash_progress;  // a zip's sha256 (its listing is quick)
};

// The archive as inspected.
struct Inspected {
  ArchiveInfo archive;
  IntegrityCheck integrity;
  std::optional<FileIdentity> identity;  // of the archive file before it was read
  std::string remembered_at;             // when the sha256 and listing come from an earlier run
};

struct PlannedInstall {
  Inspected inspected;
  EnvStep env;
  Plan plan;
  std::size_t files_read = 0;              // existing files read to compare them (the others had stamps)
  std::vector<RuntimeNeed> runtime_needs;  // Windows: zlibwapi.dll, the VC++ runtime
};

// Writes nothing but the spool (Spooling::IntoToolkit), which the caller removes (SpoolRemover).
// A signal seen while a tar.xz is spooled is ErrorCode::Interrupted (Terminated, HungUp).
Result<PlannedInstall> plan_install(const InstallRequest& request, const Toolkit& toolkit, InstallServices& services);

struct InstallHooks {
  std::function<void(const PlannedInstall&)> show;             // the plan, before anything is asked
  std::function<Result<void>(const PlannedInstall&)> approve;  // only for a plan that changes something
};

struct InstallResult {
  PlannedInstall planned;
  std::optional<TxnOutcome> txn;                  // nullopt: already installed, nothing to do
  Interruption late_signal = Interruption::None;  // a signal after the commit record: the install stands
};

// The whole install. An error before the commit leaves the tree as it was (the message says so);
// the spool is gone whatever happens.
Result<InstallResult> install(const InstallRequest& request, const Toolkit& toolkit, InstallServices& services,
                              const InstallHooks& hooks);

// Removes the spool at the end of a scope, whatever happened: it holds copies only until the
// transaction took them.
class SpoolRemover {
 public:
  SpoolRemover(FileSystem& fs, std::filesystem::path dir) : fs_(fs), dir_(std::move(dir)) {}
  SpoolRemover(const SpoolRemover&) = delete;
  SpoolRemover& operator=(const SpoolRemover&) = delete;
  ~SpoolRemover();

 private:
  FileSystem& fs_;
  std::filesystem::path dir_;
};

}  // namespace cudnn_install
