// Issue 18, class 10, end to end: a toolkit whose library directory is a symlink to a directory
// outside it. The plan says where the directory really is; writing there needs a yes at the
// prompt or --yes (without a terminal it is refused and nothing is written); --rollback puts the
// outside directory back byte for byte; uninstall --force asks the same before removing there, and
// --rollback and uninstall ask before they undo an install there.
#include <gtest/gtest.h>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// dir/cuda with its lib/ moved to dir/shared-lib and a symlink in its place (lib64/ leads to lib/).
struct LinkedLib {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  fs::path outside = dir.path() / "shared-lib";
  std::string r = " --cuda-root " + root.string() + " ";
  LinkedLib() {
    make_tree_with_old_cudnn(root);
    fs::rename(root / "lib", outside);
    fs::create_directory_symlink(outside, root / "lib");
  }
  int run(const std::string& args, std::string* out) { return run_command(cli() + " " + args + r, out); }
  int install(const std::string& args, std::string* out) {
    return run("--loader-config none --no-verify " + args + " " + corpus_args(), out);
  }
  std::string says() const { return "lib64/ is " + outside.string() + ", outside the toolkit's real path"; }
};

}  // namespace

TEST(CliOutside, WritesThroughASymlinkedLibDirectoryNeedAYesAndRollBackByteForByte) {
  LinkedLib t;
  auto before_root = snapshot(t.root), before_outside = snapshot(t.outside, "");
  std::string out;
  ASSERT_EQ(t.install("--dry-run", &out), 0) << out;
  EXPECT_NE(out.find(t.says()), std::string::npos) << out;

  EXPECT_EQ(t.install("< /dev/null", &out), 1) << out;
  EXPECT_NE(out.find("refused to install: it changes files outside the toolkit's real path (" + t.says()),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("pass --yes to install anyway"), std::string::npos) << out;
  EXPECT_EQ(diff(before_outside, snapshot(t.outside, "")), "") << "nothing written outside";
  EXPECT_EQ(diff(before_root, snapshot(t.root)), "");

  ASSERT_EQ(t.install("--yes", &out), 0) << out;
  EXPECT_NE(out.find("warning  " + t.says()), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(t.outside / "libcudnn_ops.so.9.19.0"));
  ASSERT_EQ(t.run("--rollback --yes", &out), 0) << out;
  EXPECT_EQ(diff(before_outside, snapshot(t.outside, "")), "");
  EXPECT_EQ(diff(before_root, snapshot(t.root)), "");
}

TEST(CliOutside, UninstallForceAsksBeforeRemovingOutsideTheToolkit) {
  LinkedLib t;
  auto before_outside = snapshot(t.outside, "");
  ASSERT_FALSE(before_outside.empty());
  std::string out;
  EXPECT_EQ(t.run("uninstall --force < /dev/null", &out), 1) << out;
  EXPECT_NE(out.find("refused to uninstall: it changes files outside the toolkit's real path (" + t.says()),
            std::string::npos)
      << out;
  EXPECT_EQ(diff(before_outside, snapshot(t.outside, "")), "");
  ASSERT_EQ(t.run("uninstall --force --yes", &out), 0) << out;
  EXPECT_NE(out.find("warning  " + t.says()), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(t.outside / "libcudnn.so.9.1.0"));
  ASSERT_EQ(t.run("--rollback --yes", &out), 0) << out;
  EXPECT_EQ(diff(before_outside, snapshot(t.outside, "")), "");
}

// --rollback and uninstall remove and restore files where the installs put them: through the same
// symlink. Both name the directory outside, in the dry run too, and need the same yes as an install.
TEST(CliOutside, RollbackAndUninstallNameTheDirectoryOutsideAndNeedAYes) {
  LinkedLib t;
  auto before_root = snapshot(t.root), before_outside = snapshot(t.outside, "");
  std::string out;
  for (const std::string undo : {"--rollback", "uninstall"}) {
    SCOPED_TRACE(undo);
    std::string doing = undo == "uninstall" ? "uninstall" : "roll back";
    ASSERT_EQ(t.install("--yes", &out), 0) << out;
    auto installed_root = snapshot(t.root), installed_outside = snapshot(t.outside, "");
    ASSERT_NE(diff(before_outside, installed_outside), "");

    ASSERT_EQ(t.run(undo + " --dry-run", &out), 0) << out;
    EXPECT_NE(out.find("warning  " + t.says()), std::string::npos) << out;
    EXPECT_NE(out.find("dry run: nothing was written"), std::string::npos) << out;
    EXPECT_EQ(t.run(undo + " < /dev/null", &out), 1) << out;
    EXPECT_NE(out.find("warning  " + t.says()), std::string::npos) << out;
    EXPECT_NE(out.find("refused to " + doing + ": it changes files outside the toolkit's real path (" + t.says()),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("pass --yes to " + doing + " anyway"), std::string::npos) << out;
    EXPECT_EQ(diff(installed_outside, snapshot(t.outside, "")), "") << "nothing changed outside";
    EXPECT_EQ(diff(installed_root, snapshot(t.root)), "");

    ASSERT_EQ(t.run(undo + " --yes", &out), 0) << out;
    EXPECT_NE(out.find("warning  " + t.says()), std::string::npos) << out;
    EXPECT_EQ(diff(before_outside, snapshot(t.outside, "")), "");
    EXPECT_EQ(diff(before_root, snapshot(t.root)), "");
  }
}
