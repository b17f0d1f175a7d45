// uninstall: what cudnn-install installed goes, what it replaced comes back; the rest only with --force.
#include <gtest/gtest.h>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

TEST(Uninstall, RestoresWhatTheInstallsReplacedAndLeavesTheRestUnlessForced) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto before = snapshot(root);
  std::string cli = std::string(CLI_PATH), r = " --cuda-root " + root.string(), out;
  std::string archive = archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  ASSERT_EQ(run_command(cli + " --yes --no-verify" + r + " " + archive, &out), 0) << out;
  fs::remove(root / "include/cudnn.h");  // so that a second install has work
  ASSERT_EQ(run_command(cli + " --yes --no-verify" + r + " " + archive, &out), 0) << out;
  ASSERT_EQ(run_command(cli + " uninstall --yes" + r, &out), 0) << out;
  EXPECT_NE(out.find("left in place"), std::string::npos) << out;
  EXPECT_NE(out.find("lib/libcudnn.so.9.1.0"), std::string::npos) << out;
  auto restored = snapshot(root);
  EXPECT_EQ(diff(before, restored), "") << out;
  ASSERT_EQ(run_command(cli + " uninstall --yes --force" + r, &out), 0) << out;
  EXPECT_FALSE(fs::exists(root / "lib/libcudnn.so.9.1.0"));
  EXPECT_FALSE(fs::exists(root / "include/cudnn_version.h"));
  EXPECT_TRUE(fs::exists(root / "lib/libcublas.so.13")) << "not cuDNN: never touched";
  ASSERT_EQ(run_command(cli + " --rollback --yes" + r, &out), 0) << out;
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

TEST(Uninstall, NothingThere) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  std::string out;
  EXPECT_EQ(run_command(std::string(CLI_PATH) + " uninstall --yes --cuda-root " + dir.path().string(), &out), 6) << out;
  EXPECT_NE(out.find("there is no cuDNN"), std::string::npos) << out;
}
