// The real Linux toolkit layouts, installed into and rolled back: files land where the runtime
// lives, symlinked directories stay symlinks, and the tree comes back byte for byte.
#include <gtest/gtest.h>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

struct Layout {
  const char* name;
  void (*make)(const fs::path&);
  const char* lib_dir;       // where the libraries must land
  const char* symlinked[2];  // directories that must still be symlinks afterwards
};

void pip_assembled(const fs::path& r) { make_linux_toolkit(r, 13000); }

void installer_targets(const fs::path& r) {  // NVIDIA's runfile/deb: include and lib64 link into targets/
  write_file(r / "targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  write_file(r / "targets/x86_64-linux/lib/libcudart.so.13", "cudart");
  fs::create_directory_symlink("targets/x86_64-linux/include", r / "include");
  fs::create_directory_symlink("targets/x86_64-linux/lib", r / "lib64");
}

void distribution(const fs::path& r) {  // nvidia-cuda-toolkit in /usr
  write_file(r / "include/cuda.h", "#define CUDA_VERSION 13000\n");
  write_file(r / "lib/x86_64-linux-gnu/libcudart.so.13", "cudart");
}

}  // namespace

TEST(Layouts, InstallAndRollbackInEveryLinuxLayout) {
  const Layout layouts[] = {
      {"pip-assembled (lib64 -> lib)", pip_assembled, "lib", {"lib64", nullptr}},
      {"installer (include, lib64 -> targets/x86_64-linux)",
       installer_targets,
       "targets/x86_64-linux/lib",
       {"include", "lib64"}},
      {"distribution package (/usr)", distribution, "lib/x86_64-linux-gnu", {nullptr, nullptr}},
  };
  for (const auto& layout : layouts) {
    TempDir dir;
    fs::path root = dir.path() / "cuda";
    layout.make(root);
    auto before = snapshot(root);
    auto fs = make_real_filesystem();
    auto p = prepare(root, corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
    ASSERT_TRUE(apply_plan(*fs, root, p.archive, p.plan, {})) << layout.name;
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(root / layout.lib_dir / "libcudnn.so.9.19.0"))) << layout.name;
    EXPECT_TRUE(fs::is_symlink(root / layout.lib_dir / "libcudnn.so.9")) << layout.name;
    EXPECT_TRUE(fs::exists(root / "include/cudnn_version.h")) << layout.name;
    for (const char* link : layout.symlinked) {
      if (!link) continue;
      EXPECT_TRUE(fs::is_symlink(root / link)) << layout.name << ": " << link << " must stay a symlink";
    }
    ASSERT_TRUE(rollback_last(*fs, root)) << layout.name;
    EXPECT_EQ(diff(before, snapshot(root)), "") << layout.name;
  }
}
