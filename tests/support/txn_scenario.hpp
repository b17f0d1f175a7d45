// A realistic install scenario for transaction tests: a pip-assembled CUDA 13.0 tree that already
// holds an older cuDNN 9.1 (files to overwrite, a symlink chain, a stale library to remove, a
// file identical to the archive's), and the corpus's real-layout cuDNN 9.19 archive.
#pragma once
#include <filesystem>
#include <string>

#include "cudnn_install/install.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/txn.hpp"
#include "support/tree_snapshot.hpp"

namespace cudnn_install::test {

std::filesystem::path corpus_archive(const std::string& file_name);
// The corpus's local manifest (redistrib_local.json) that vouches for its archives, as --manifest does.
std::optional<std::filesystem::path> corpus_manifest(const std::filesystem::path& archive);
// The CLI arguments (archive and its manifest) for the corpus's linux-x86_64 cuDNN 9.19 archive.
std::string corpus_args();
// Writes the tree described above under root.
void make_tree_with_old_cudnn(const std::filesystem::path& root);
// The same for Windows: a CUDA 13.0 tree with DLLs in bin\x64 and an older cuDNN 9.1 in it.
void make_windows_tree_with_old_cudnn(const std::filesystem::path& root);
// Inspects, detects, scans and plans against the tree as it is now.
struct Prepared {
  ArchiveInfo archive;
  Toolkit toolkit;
  Plan plan;
};
Prepared prepare(const std::filesystem::path& root, const std::filesystem::path& archive);
// How the install reads the archive: again at staging (a zip, or --dry-run's listing), or from
// the spool that inspecting a tar.xz for a real install fills (inspect_and_spool).
enum class Reading { Archive, Spool };
// The library's install() as the CLI calls it under its lock, every write through `fs`: inspect
// (spooling when asked), plan, apply (a zip's entries inflated on two threads), stamp and remember,
// remove what is left of the spool. `interrupts`, when given, is looked at by the spool and the
// transaction as the CLI's signal handlers are.
Result<TxnOutcome> install_through(FileSystem& fs, const std::filesystem::path& root,
                                   const std::filesystem::path& archive, Reading reading,
                                   Interrupts* interrupts = nullptr);
// Temporaries of the state files (stamps.json.tmp-PID, archives.json.tmp-PID) left in the state directory.
std::vector<std::string> state_temporaries(const std::filesystem::path& root);
// Names of temporary files (".cudnn-install-*.tmp") left anywhere under root.
std::vector<std::string> stray_temporaries(const std::filesystem::path& root);

}  // namespace cudnn_install::test
