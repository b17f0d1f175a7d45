// rollback() and uninstall() (rollback.hpp, uninstall.hpp), the operations the CLI calls for
// --rollback and uninstall: what they ask before they change anything, that the preview they
// show is the change they then make, what a signal or a refusal leaves, and faults at every write.
#include <gtest/gtest.h>

#include "cudnn_install/rollback.hpp"
#include "cudnn_install/state_dir.hpp"
#include "cudnn_install/uninstall.hpp"
#include "support/fake_interrupts.hpp"
#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";

// A toolkit with an older cuDNN that this tool did not install, then cuDNN 9.19 installed by it.
struct Installed {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  std::unique_ptr<FileSystem> real = make_real_filesystem();
  Toolkit toolkit;
  Snapshot before;     // the tree before the install
  Snapshot installed;  // and after it
  std::string txn;

  Installed() {
    make_tree_with_old_cudnn(root);
    before = snapshot(root);
    auto done = install_through(*real, root, corpus_archive(kArchive), Reading::Spool);
    if (!done) throw std::runtime_error(done.error().message);
    txn = done->id;
    installed = snapshot(root);
    ToolkitSearch search;
    toolkit = *probe_toolkit(root, "--cuda-root", search);
  }
  // A session as open_session leaves it (the lock is not needed here), writing through `fs`.
  static Session session_on(std::unique_ptr<FileSystem> fs, std::unique_ptr<Interrupts> interrupts = nullptr) {
    Session s;
    s.fs = std::move(fs);
    s.interrupts = std::move(interrupts);
    return s;
  }
};

// The mutating calls a filesystem saw, as the preview names them ("remove lib/x", "move a -> b").
struct Recorded {
  std::vector<std::string> ops;
};
std::unique_ptr<FaultyFileSystem> recording(FileSystem& real, Recorded& out, int fail_at = 0) {
  auto fs = std::make_unique<FaultyFileSystem>(real, fail_at, FaultyFileSystem::Mode::FailOnce);
  fs->before_op = [&out](const char* op, const fs::path& path) {
    if (std::string(op) != "sync_dir") out.ops.push_back(std::string(op) + " " + path.lexically_normal().string());
  };
  return fs;
}

std::vector<std::string> as_ops(const std::vector<PreviewChange>& changes) {
  std::vector<std::string> ops;
  for (const auto& c : changes) {
    const char* op = c.kind == PreviewChange::Kind::Create    ? "create_new"
                     : c.kind == PreviewChange::Kind::Symlink ? "make_symlink"
                     : c.kind == PreviewChange::Kind::Move    ? "rename"
                     : c.kind == PreviewChange::Kind::Remove  ? "remove"
                     : c.kind == PreviewChange::Kind::MakeDir ? "make_dir"
                                                              : "append_durable";
    ops.push_back(std::string(op) + " " + c.path.lexically_normal().string());
  }
  return ops;
}

ChangeHooks refusing(int* asked) {
  ChangeHooks hooks;
  hooks.approve = [asked](const Previewed&) -> Result<void> {
    ++*asked;
    return fail(ErrorCode::Usage, "cancelled");
  };
  return hooks;
}

}  // namespace

TEST(RollbackOperation, ThePreviewItApprovesIsTheChangeItMakes) {
  Installed t;
  std::vector<std::string> previewed;
  ChangeHooks hooks;
  hooks.approve = [&](const Previewed& p) -> Result<void> {
    EXPECT_FALSE(p.failure);
    EXPECT_NE(p.headline.at(0).find(t.txn), std::string::npos) << p.headline.at(0);
    previewed = as_ops(p.changes);
    return {};
  };
  Recorded made;
  Session session = Installed::session_on(recording(*t.real, made));
  made.ops.clear();  // the preview itself writes nothing: recorded below if it did
  auto done = rollback(session, t.toolkit, hooks);
  ASSERT_TRUE(done) << done.error().message;
  ASSERT_TRUE(done->undone);
  EXPECT_EQ(done->undone->id, t.txn);
  EXPECT_FALSE(previewed.empty());
  EXPECT_EQ(previewed, made.ops);
  EXPECT_EQ(diff(t.before, snapshot(t.root)), "");
}

TEST(RollbackOperation, ARefusalAtThePromptOrAboutOutsideDirectoriesChangesNothing) {
  Installed t;
  Session session = Installed::session_on(make_real_filesystem());
  int asked = 0;
  auto refused = rollback(session, t.toolkit, refusing(&asked));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "cancelled");
  EXPECT_EQ(asked, 1);
  ChangeHooks outside_refused = refusing(&asked);
  int outside_asked = 0;
  outside_refused.allow_outside = [&](const std::vector<OutsideDir>& dirs) -> Result<void> {
    ++outside_asked;
    EXPECT_TRUE(dirs.empty());  // this toolkit has no directory linked elsewhere
    return fail(ErrorCode::Usage, "not outside");
  };
  ASSERT_FALSE(rollback(session, t.toolkit, outside_refused));
  EXPECT_EQ(outside_asked, 1);
  EXPECT_EQ(asked, 1) << "the preview is not asked about once the outside directories were refused";
  EXPECT_EQ(diff(t.installed, snapshot(t.root)), "");
  EXPECT_EQ(read_history(*t.real, t.root)->size(), 1u);
}

TEST(RollbackOperation, ASignalBeforeTheUndoStartsChangesNothing) {
  Installed t;
  auto interrupts = std::make_unique<FakeInterrupts>();
  FakeInterrupts* signal = interrupts.get();
  Session session = Installed::session_on(make_real_filesystem(), std::move(interrupts));
  ChangeHooks hooks;
  hooks.approve = [&](const Previewed&) -> Result<void> {
    signal->raise(Interruption::Terminate);  // came while the prompt was answered
    return {};
  };
  auto stopped = rollback(session, t.toolkit, hooks);
  ASSERT_FALSE(stopped);
  EXPECT_NE(stopped.error().message.find("nothing was changed"), std::string::npos) << stopped.error().message;
  EXPECT_EQ(diff(t.installed, snapshot(t.root)), "");
}

TEST(RollbackOperation, AfterItsSessionRolledBackAnInterruptedInstallItUndoesNothingMore) {
  Installed t;
  Session session = Installed::session_on(make_real_filesystem());
  session.recovered = Recovery{Recovery::What::RolledBack, "20261206T000000Z-1", {}};
  int asked = 0;
  auto done = rollback(session, t.toolkit, refusing(&asked));
  ASSERT_TRUE(done) << done.error().message;
  EXPECT_FALSE(done->undone);
  EXPECT_EQ(done->recovered.id, "20261206T000000Z-1");
  EXPECT_EQ(asked, 0);
  EXPECT_EQ(diff(t.installed, snapshot(t.root)), "");
}

TEST(RollbackOperation, ItsDryRunWritesNothingAndNamesTheTransaction) {
  Installed t;
  auto state_before = snapshot(state_dir(t.root), "");
  auto preview = preview_rollback(*t.real, nullptr, t.toolkit);
  ASSERT_TRUE(preview) << preview.error().message;
  EXPECT_EQ(preview->undone.id, t.txn);
  EXPECT_FALSE(preview->change.preview.changes.empty());
  EXPECT_EQ(diff(t.installed, snapshot(t.root)), "");
  EXPECT_EQ(diff(state_before, snapshot(state_dir(t.root), "")), "");
}

TEST(UninstallOperation, UndoesItsInstallThenLeavesOrRemovesTheFilesItDidNotInstall) {
  Installed t;
  Session session = Installed::session_on(make_real_filesystem());
  std::vector<std::string> previewed;
  ChangeHooks hooks;
  hooks.approve = [&](const Previewed& p) -> Result<void> {
    previewed = p.after;
    return {};
  };
  auto left = uninstall(session, t.toolkit, OthersFiles::Leave, hooks);
  ASSERT_TRUE(left) << left.error().message;
  ASSERT_EQ(left->undone.size(), 1u);
  EXPECT_EQ(left->undone[0].id, t.txn);
  EXPECT_TRUE(left->left.contains("lib/libcudnn.so.9.1.0"));
  EXPECT_FALSE(left->removed);
  EXPECT_EQ(diff(t.before, snapshot(t.root)), "");
  ASSERT_FALSE(previewed.empty());
  EXPECT_NE(previewed[0].find("left in place"), std::string::npos) << previewed[0];

  auto removed = uninstall(session, t.toolkit, OthersFiles::Remove, {});
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_TRUE(removed->undone.empty());
  ASSERT_TRUE(removed->removed);
  EXPECT_EQ(removed->removed->files_removed, removed->left.size());
  EXPECT_TRUE(cudnn_files_in(*t.real, t.toolkit).empty());
  EXPECT_TRUE(fs::exists(t.root / "lib/libcublas.so.13")) << "not cuDNN: never touched";

  Snapshot none_left = snapshot(t.root);
  auto again = uninstall(session, t.toolkit, OthersFiles::Remove, {});  // the removal is a transaction too:
  ASSERT_TRUE(again) << again.error().message;                          // undone, then made again
  ASSERT_EQ(again->undone.size(), 1u);
  EXPECT_EQ(again->undone[0].id, removed->removed->id);
  EXPECT_EQ(diff(none_left, snapshot(t.root)), "");
}

TEST(UninstallOperation, ItsDryRunWritesNothingAndForeseesTheRemoval) {
  Installed t;
  auto state_before = snapshot(state_dir(t.root), "");
  auto preview = preview_uninstall(*t.real, nullptr, t.toolkit, OthersFiles::Remove);
  ASSERT_TRUE(preview) << preview.error().message;
  const auto& headline = preview->preview.headline;
  ASSERT_EQ(headline.size(), 2u);
  EXPECT_NE(headline[1].find("did not install (--force"), std::string::npos) << headline[1];
  EXPECT_EQ(diff(t.installed, snapshot(t.root)), "");
  EXPECT_EQ(diff(state_before, snapshot(state_dir(t.root), "")), "");
}

// A fault at each write of uninstall --force (the undo, then the removal's own transaction):
// after the next session's recovery the tree is whole at one of the three states it passes through.
TEST(UninstallOperation, AFaultAtAnyWriteLeavesTheTreeWholeAfterRecovery) {
  Installed probe;
  Recorded counted;
  Session counting = Installed::session_on(recording(*probe.real, counted));
  ASSERT_TRUE(uninstall(counting, probe.toolkit, OthersFiles::Remove, {}));
  const Snapshot removed_all = snapshot(probe.root);
  const int writes = static_cast<int>(counted.ops.size());
  ASSERT_GT(writes, 10);
  std::map<std::string, int> outcomes;
  for (int fail_at = 1; fail_at <= writes; ++fail_at) {
    Installed t;
    Recorded ignored;
    Session session = Installed::session_on(recording(*t.real, ignored, fail_at));
    auto done = uninstall(session, t.toolkit, OthersFiles::Remove, {});
    EXPECT_TRUE(!done || done->removal_failed) << "a fault at write " << fail_at << " was not reported";
    ASSERT_TRUE(recover(*t.real, t.root)) << fail_at;
    Snapshot now = snapshot(t.root);
    std::string state = now == t.installed   ? "installed"
                        : now == t.before    ? "undone"
                        : now == removed_all ? "removed"
                                             : "";
    EXPECT_NE(state, "") << "fault at write " << fail_at << " (" << counted.ops[fail_at - 1]
                         << "): " << diff(t.before, now);
    ++outcomes[state];
  }
  EXPECT_GT(outcomes["installed"], 0);
  EXPECT_GT(outcomes["undone"], 0);
}
