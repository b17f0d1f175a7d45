// Issue 18, class 5, end to end: a second process creates a file where the install will create one
// while the real binary waits at its confirmation prompt on a terminal. The install must fail and
// roll back, leave that file byte for byte, say what appeared and what to do; --rollback afterwards
// must not delete it either.
#include <gtest/gtest.h>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

std::string pty_run() { return "python3 " + std::string(SOURCE_DIR) + "/tests/support/pty_run.py "; }

}  // namespace

TEST(CliRace, AFileCreatedWhileThePromptWaitsIsNeitherReplacedNorDeletedByRollback) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  const std::string target = "lib/libcudnn_ops.so.9.19.0";
  std::string r = " --loader-config none --no-verify --cuda-root " + root.string() + " ", out;
  ASSERT_EQ(run_command(cli() + " --dry-run" + r + corpus_args(), &out), 0) << out;
  ASSERT_NE(out.find("create         " + target), std::string::npos) << out;
  auto before = snapshot(root);

  fs::path planted = root / target;
  write_file(dir.path() / "planted", "another program's library\n");
  std::string plant = "--before-answer 'cp " + (dir.path() / "planted").string() + " " + planted.string() + "' ";
  EXPECT_EQ(run_command(pty_run() + plant + "y " + cli() + r + corpus_args(), &out), 3) << out;
  EXPECT_NE(out.find("Proceed?"), std::string::npos) << out;
  EXPECT_NE(out.find(planted.string() + "' appeared after cudnn-install planned the install"), std::string::npos)
      << out;
  EXPECT_NE(out.find("move it away and run the install again"), std::string::npos) << out;
  EXPECT_NE(out.find("rolled back"), std::string::npos) << out;
  EXPECT_EQ(read_file(planted), "another program's library\n");
  auto after = snapshot(root);
  after.erase(target);
  EXPECT_EQ(diff(before, after), "") << "everything else is as it was";

  EXPECT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root.string(), &out), 6) << out;
  EXPECT_EQ(read_file(planted), "another program's library\n");
}

// After the commit: a library of the install that another program rewrote since is not deleted by
// --rollback (nor by its dry run, which predicts the refusal); moved away, the rollback goes through.
TEST(CliRace, RollbackLeavesAnInstalledFileThatWasChangedSince) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto before = snapshot(root);
  const std::string target = "lib/libcudnn_ops.so.9.19.0";
  std::string r = " --cuda-root " + root.string(), out;
  ASSERT_EQ(run_command(cli() + " --yes --no-verify --loader-config none" + r + " " + corpus_args(), &out), 0) << out;
  write_file(root / target, "rebuilt by another program\n");
  auto changed = snapshot(root, "");
  for (const char* mode : {" --dry-run", " --yes"}) {
    SCOPED_TRACE(mode);
    EXPECT_EQ(run_command(cli() + " --rollback" + mode + r, &out), 3) << out;
    EXPECT_NE(out.find("installed or removed were changed after it"), std::string::npos) << out;
    EXPECT_NE(out.find("\n  " + target + " (it holds other bytes now"), std::string::npos) << out;
    EXPECT_NE(out.find("Nothing was changed"), std::string::npos) << out;
    auto now = snapshot(root, "");
    now.erase(".cudnn-install/cudnn-install.log");
    changed.erase(".cudnn-install/cudnn-install.log");
    EXPECT_EQ(diff(changed, now), "");
  }
  fs::rename(root / target, dir.path() / "kept");
  ASSERT_EQ(run_command(cli() + " --rollback --yes" + r, &out), 0) << out;
  EXPECT_EQ(diff(before, snapshot(root)), "") << out;
  EXPECT_EQ(read_file(dir.path() / "kept"), "rebuilt by another program\n");
}
