// install() and plan_install() (install.hpp), the operations the CLI calls: what they ask, what
// they write, and what a second run of the same archive finds.
#include <gtest/gtest.h>

#include "cudnn_install/archive_memo.hpp"
#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/install.hpp"
#include "support/fake_interrupts.hpp"
#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kInstallTestArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";

struct InstallFixture {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  std::unique_ptr<FileSystem> real = make_real_filesystem();
  Toolkit toolkit;
  InstallRequest request;

  InstallFixture() {
    make_tree_with_old_cudnn(root);
    fs::create_directories(state_dir(root));  // as the CLI's lock makes it
    ToolkitSearch search;
    toolkit = *probe_toolkit(root, "--cuda-root", search);
    request.archive = corpus_archive(kInstallTestArchive);
    request.manifest = corpus_manifest(request.archive);
    request.spooling = Spooling::IntoToolkit;
  }
};

// Counts the mutating operations under the toolkit (state directory included).
struct CountingFs {
  FaultyFileSystem fs;
  std::vector<std::string> ops;
  explicit CountingFs(FileSystem& real) : fs(real, 0, FaultyFileSystem::Mode::FailOnce) {
    fs.before_op = [this](const char* op, const fs::path& path) {
      ops.push_back(std::string(op) + " " + path.filename().string());
    };
  }
};

}  // namespace

TEST(InstallOperation, ARefusedApprovalLeavesTheTreeAndRemovesTheSpool) {
  InstallFixture f;
  auto before = snapshot(f.root);
  InstallServices services{*f.real};
  int shown = 0;
  InstallHooks hooks;
  hooks.show = [&](const PlannedInstall& p) {
    ++shown;
    EXPECT_TRUE(p.plan.changes_anything());
    EXPECT_TRUE(fs::exists(spool_dir(f.root)));  // the tar.xz was decoded into the spool while listed
  };
  hooks.approve = [](const PlannedInstall&) -> Result<void> { return fail(ErrorCode::Usage, "cancelled"); };
  auto result = install(f.request, f.toolkit, services, hooks);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "cancelled");
  EXPECT_EQ(shown, 1);
  EXPECT_EQ(diff(before, snapshot(f.root)), "");
  EXPECT_FALSE(fs::exists(spool_dir(f.root)));
  EXPECT_FALSE(has_pending_journal(f.root));
}

TEST(InstallOperation, TheSecondRunOfTheSameArchiveAsksNothingAndReadsItsMemo) {
  InstallFixture f;
  InstallServices services{*f.real};
  auto first = install(f.request, f.toolkit, services, {});
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(first->txn);
  EXPECT_TRUE(find_archive_memo(*f.real, f.root, f.request.archive));  // remembered
  EXPECT_FALSE(read_file_stamps(*f.real, f.root).files.empty());       // stamped
  auto after = snapshot(f.root);

  CountingFs counting(*f.real);
  InstallServices again{counting.fs};
  InstallHooks hooks;
  hooks.approve = [](const PlannedInstall&) -> Result<void> {
    ADD_FAILURE() << "nothing to approve: the archive is installed";
    return {};
  };
  auto second = install(f.request, f.toolkit, again, hooks);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->txn);
  EXPECT_FALSE(second->planned.inspected.remembered_at.empty());  // listing and sha256 from the memo
  EXPECT_EQ(second->planned.files_read, 0u);                      // every file known by its stamp
  EXPECT_EQ(diff(after, snapshot(f.root)), "");
  for (const auto& op : counting.ops) EXPECT_EQ(op.find(".json"), std::string::npos) << op;  // no state rewritten
}

TEST(InstallOperation, AnInterruptedSpoolSaysNothingChanged) {
  InstallFixture f;
  auto before = snapshot(f.root);
  FakeInterrupts interrupts;
  interrupts.raise(Interruption::Terminate);
  f.request.apply.interrupts = &interrupts;
  InstallServices services{*f.real};
  auto result = install(f.request, f.toolkit, services, {});
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::Terminated);
  EXPECT_NE(result.error().message.find("nothing was changed"), std::string::npos) << result.error().message;
  EXPECT_EQ(diff(before, snapshot(f.root)), "");
  EXPECT_FALSE(fs::exists(spool_dir(f.root)));
}

TEST(InstallOperation, TheEnvironmentStepAndRuntimeNeedsComeFromTheServices) {
  InstallFixture f;
  InstallServices services{*f.real};
  int asked_major = 0;
  services.plan_env = [&](const Toolkit&, int cudnn_major) -> Result<EnvStep> {
    asked_major = cudnn_major;
    EnvStep step;
    step.lines = {"loader entry proposed"};
    return step;
  };
  {
    auto planned = plan_install(f.request, f.toolkit, services);
    SpoolRemover spool(*f.real, spool_dir(f.root));
    ASSERT_TRUE(planned) << planned.error().message;
    EXPECT_EQ(asked_major, 9);
    EXPECT_EQ(planned->env.lines, std::vector<std::string>{"loader entry proposed"});
    EXPECT_TRUE(planned->runtime_needs.empty());  // a Linux toolkit
  }

  services.plan_env = [](const Toolkit&, int) -> Result<EnvStep> { return fail(ErrorCode::Io, "no ld.so.conf.d"); };
  auto refused = plan_install(f.request, f.toolkit, services);
  SpoolRemover spool(*f.real, spool_dir(f.root));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "no ld.so.conf.d");
}
