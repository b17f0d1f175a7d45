#include "support/txn_scenario.hpp"

#include <stdexcept>

#include "support/sandbox.hpp"

namespace fs = std::filesystem;

namespace cudnn_install::test {

fs::path corpus_archive(const std::string& file_name) { return fs::path(CORPUS_DIR) / "good" / file_name; }

std::optional<fs::path> corpus_manifest(const fs::path& archive) {
  fs::path manifest = archive.parent_path() / "redistrib_local.json";
  if (!fs::exists(manifest)) return std::nullopt;
  return manifest;
}

std::string corpus_args() { return archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz")); }

void make_tree_with_old_cudnn(const fs::path& root) {
  make_linux_toolkit(root, 13000);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  write_file(root / "include/cudnn.h", "old cudnn.h\n");
  // Identical to the archive's copy: must be skipped, not rewritten.
  std::string same;
  for (int i = 0; i < 3; ++i)
    same += "fake content of cudnn-linux-x86_64-9.19.0.56_cuda13-archive/include/cudnn_adv.h\n";
  write_file(root / "include/cudnn_adv.h", same);
  write_file(root / "lib/libcudnn.so.9.1.0", "old libcudnn 9.1\n");
  fs::permissions(root / "lib/libcudnn.so.9.1.0", fs::perms(0755));
  fs::create_symlink("libcudnn.so.9.1.0", root / "lib/libcudnn.so.9");
  fs::create_symlink("libcudnn.so.9", root / "lib/libcudnn.so");
  write_file(root / "lib/libcudnn_ops.so.9.1.0", "stale ops 9.1\n");
  write_file(root / "lib/libcudnn_ops_infer.so.8", "cudnn 8 kept\n");
  write_file(root / "lib/libcublas.so.13", "not ours\n");
}

void make_windows_tree_with_old_cudnn(const fs::path& root) {
  make_windows_toolkit(root, "13.0.0", true);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  write_file(root / "include/cudnn.h", "old cudnn.h\n");
  write_file(root / "bin/x64/cudnn64_9.dll", "MZ old cudnn 9.1\n");
  write_file(root / "bin/x64/cudnn_ops64_9.dll", "MZ old ops 9.1\n");
  write_file(root / "lib/x64/cudnn.lib", "old import library\n");
}

namespace {

// Detects, scans and plans against the tree as it is now.
Prepared plan_against(const fs::path& root, ArchiveInfo archive) {
  ToolkitSearch search;
  auto toolkit = probe_toolkit(root, "--cuda-root", search);
  if (!toolkit) throw std::runtime_error(toolkit.error().message);
  auto fs = make_real_filesystem();
  auto tree = scan_tree(*fs, archive, *toolkit);
  if (!tree) throw std::runtime_error(tree.error().message);
  auto plan = make_plan(archive, *toolkit, *tree, {});
  if (!plan) throw std::runtime_error(plan.error().message);
  return {std::move(archive), *toolkit, *plan};
}

// A zip's entries are inflated on two threads, whatever this machine's core count.
ApplyOptions two_threads(Interrupts* interrupts) {
  ApplyOptions options;
  options.extract_threads = 2;
  options.interrupts = interrupts;
  return options;
}

}  // namespace

Prepared prepare(const fs::path& root, const fs::path& archive_path) {
  auto archive = inspect_archive(archive_path, std::nullopt);
  if (!archive) throw std::runtime_error(archive.error().message);
  return plan_against(root, std::move(*archive));
}

Result<TxnOutcome> install_through(FileSystem& fs, const fs::path& root, const fs::path& archive_path, Reading reading,
                                   Interrupts* interrupts) {
  ToolkitSearch search;
  auto toolkit = probe_toolkit(root, "--cuda-root", search);
  if (!toolkit) throw std::runtime_error(toolkit.error().message);
  if (reading == Reading::Spool) fs::create_directories(state_dir(root));  // the CLI's lock file made it
  InstallRequest request;
  request.archive = archive_path;
  request.manifest = corpus_manifest(archive_path);
  request.spooling = reading == Reading::Spool ? Spooling::IntoToolkit : Spooling::None;
  request.apply = two_threads(interrupts);
  InstallServices services{fs};
  auto result = install(request, *toolkit, services, {});
  if (!result) return std::unexpected(result.error());
  if (!result->txn) throw std::runtime_error("the scenario's archive was already installed");
  return *result->txn;
}

std::vector<std::string> state_temporaries(const fs::path& root) {
  std::vector<std::string> found;
  if (!fs::exists(state_dir(root))) return found;
  for (const auto& entry : fs::directory_iterator(state_dir(root)))
    if (entry.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(entry.path().string());
  return found;
}

std::vector<std::string> stray_temporaries(const fs::path& root) {
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
    if (it->path().filename().string().starts_with(".cudnn-install-")) found.push_back(it->path().string());
  return found;
}

}  // namespace cudnn_install::test
