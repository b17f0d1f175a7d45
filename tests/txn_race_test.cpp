// Issue 18, class 5: races between the plan and the swap. Another program may create a file where
// the plan creates one, or change a file the plan replaces, while the user reads the prompt. A
// create never replaces (RenameMode::NoReplace); an overwrite backs up only the file the plan saw.
// Either way the install fails, is rolled back, and the other program's file is left byte for byte.
#include <gtest/gtest.h>

#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kRaceArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
const char* kPlanted = "planted by another program\n";

// The first step of `action` that puts a regular file in place.
const Step& first(const Plan& plan, Action action) {
  for (const auto& s : plan.steps)
    if (s.action == action && s.type == EntryType::File) return s;
  throw std::runtime_error("the scenario's plan has no such step");
}

// Calls `plant` once, just before the `n`th record is appended to the journal (1: "begin",
// 2: "staged": every file is staged and the swap is next).
void before_record(FaultyFileSystem& faulty, const fs::path& root, int n, std::function<void()> plant) {
  faulty.before_op = [&root, n, plant, appends = 0](const char* op, const fs::path& path) mutable {
    if (std::string(op) == "append_durable" && path == txn_paths::journal(root) && ++appends == n) plant();
  };
}

// The number of `target`'s step in the journal (temporaries are named after it): the plan's steps
// that change something, in order.
std::size_t step_of(const Plan& plan, const std::string& target) {
  std::size_t n = 0;
  for (const auto& s : plan.steps) {
    if (s.action != Action::Create && s.action != Action::Overwrite && s.action != Action::Remove) continue;
    if (s.target == target) return n;
    ++n;
  }
  throw std::runtime_error("no step for " + target);
}

// The scenario's tree, its plan for the race archive, and the first file that plan creates.
struct RaceTree {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  Snapshot before;
  Prepared p;
  std::string target;
  std::unique_ptr<FileSystem> real = make_real_filesystem();
  RaceTree() {
    make_tree_with_old_cudnn(root);
    before = snapshot(root);
    p = prepare(root, corpus_archive(kRaceArchive));
    target = first(p.plan, Action::Create).target;
  }
};

}  // namespace

TEST(TxnRace, AFileThatAppearsAtACreateTargetIsNeverReplaced) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto p = prepare(root, corpus_archive(kRaceArchive));
  std::string target = first(p.plan, Action::Create).target;
  auto real = make_real_filesystem();
  FaultyFileSystem faulty(*real, 0, FaultyFileSystem::Mode::FailOnce);
  before_record(faulty, root, 2, [&] { write_file(root / target, kPlanted); });
  auto expected = snapshot(root);
  auto outcome = apply_plan(faulty, root, p.archive, p.plan, {});
  ASSERT_FALSE(outcome) << "installed over a file that appeared at " << target;
  EXPECT_EQ(outcome.error().code, ErrorCode::Conflict);
  EXPECT_NE(outcome.error().message.find(target), std::string::npos) << outcome.error().message;
  EXPECT_NE(outcome.error().message.find("appeared"), std::string::npos) << outcome.error().message;
  EXPECT_NE(outcome.error().message.find("move it away"), std::string::npos) << outcome.error().message;
  EXPECT_NE(outcome.error().message.find("rolled back"), std::string::npos) << outcome.error().message;
  auto after = snapshot(root);
  EXPECT_EQ(after.at(target).content, kPlanted);
  after.erase(target);
  expected.erase(target);
  EXPECT_EQ(diff(expected, after), "") << "everything else is as it was before";
  EXPECT_TRUE(stray_temporaries(root).empty());
  EXPECT_FALSE(has_pending_journal(root));
  auto rolled = rollback_last(*real, root);  // nothing was committed: nothing to undo, nothing deleted
  ASSERT_FALSE(rolled);
  EXPECT_EQ(rolled.error().code, ErrorCode::NothingToUndo);
  EXPECT_EQ(read_file(root / target), kPlanted);
}

// A crash after the swap failed on the appeared file: recovery (the "staged" record is there, so
// the swap may have begun) must still see that the new file never reached that target.
TEST(TxnRace, RecoveryAfterACrashLeavesTheAppearedFile) {
  RaceTree t;  // its tree is only the model: each round crashes on a copy
  const std::string& target = t.target;
  auto& real = t.real;
  const Snapshot& before = t.before;
  // Counting first: the operation number of the "staged" append, then crash just after it.
  int staged_op = 0;
  {
    TempDir probe_dir;
    fs::path probe = probe_dir.path() / "cuda";
    make_tree_with_old_cudnn(probe);
    auto q = prepare(probe, corpus_archive(kRaceArchive));
    FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
    before_record(counting, probe, 2, [&] { staged_op = counting.operations(); });
    ASSERT_TRUE(apply_plan(counting, probe, q.archive, q.plan, {}));
  }
  ASSERT_GT(staged_op, 0);
  for (int after_staged = 1; after_staged <= 3; ++after_staged) {
    SCOPED_TRACE("crash at the " + std::to_string(after_staged) + "th operation after \"staged\"");
    TempDir d;
    fs::path r = d.path() / "cuda";
    make_tree_with_old_cudnn(r);
    auto q = prepare(r, corpus_archive(kRaceArchive));
    FaultyFileSystem crashing(*real, staged_op + after_staged, FaultyFileSystem::Mode::Crash);
    before_record(crashing, r, 2, [&] { write_file(r / target, kPlanted); });
    (void)apply_plan(crashing, r, q.archive, q.plan, {});
    auto recovered = recover(*real, r);
    ASSERT_TRUE(recovered) << recovered.error().message;
    EXPECT_EQ(read_file(r / target), kPlanted);
    auto now = snapshot(r);
    now.erase(target);
    EXPECT_EQ(diff(before, now), "");
    EXPECT_TRUE(stray_temporaries(r).empty());
  }
}

// A failure while staging (before the swap): no target was touched, so files that appeared at
// create targets whose temporaries were not written yet are not the transaction's either.
TEST(TxnRace, AFailureBeforeTheSwapLeavesFilesThatAppearedAtCreateTargets) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto before = snapshot(root);
  auto p = prepare(root, corpus_archive(kRaceArchive));
  std::vector<std::string> creates;
  for (const auto& s : p.plan.steps)
    if (s.action == Action::Create && s.type == EntryType::File) creates.push_back(s.target);
  ASSERT_GE(creates.size(), 2u);
  auto real = make_real_filesystem();
  // The operation number of the second temporary's creation, counted on a twin tree.
  int second_create = 0;
  {
    TempDir twin_dir;
    fs::path twin = twin_dir.path() / "cuda";
    make_tree_with_old_cudnn(twin);
    auto q = prepare(twin, corpus_archive(kRaceArchive));
    FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
    int seen = 0;
    counting.before_op = [&](const char* op, const fs::path&) {
      if (std::string(op) == "create_new" && ++seen == 2) second_create = counting.operations();
    };
    ASSERT_TRUE(apply_plan(counting, twin, q.archive, q.plan, {}));
  }
  ASSERT_GT(second_create, 0);
  // Every create target appears when the first temporary is created; the second fails (a full disk).
  FaultyFileSystem faulty(*real, second_create, FaultyFileSystem::Mode::FailOnce);
  int creates_seen = 0;
  faulty.before_op = [&](const char* op, const fs::path&) {
    if (std::string(op) == "create_new" && ++creates_seen == 1)
      for (const auto& t : creates) write_file(root / t, kPlanted);
  };
  auto outcome = apply_plan(faulty, root, p.archive, p.plan, {});
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message.find("injected fault"), std::string::npos) << outcome.error().message;
  for (const auto& t : creates) EXPECT_EQ(read_file(root / t), kPlanted) << t;
  auto now = snapshot(root);
  for (const auto& t : creates) now.erase(t);
  EXPECT_EQ(diff(before, now), "");
  EXPECT_TRUE(stray_temporaries(root).empty());
}

TEST(TxnRace, AnOverwriteTargetChangedSinceTheScanAbortsAndIsRolledBack) {
  for (const char* change : {"rewritten", "removed"}) {
    SCOPED_TRACE(change);
    TempDir dir;
    fs::path root = dir.path() / "cuda";
    make_tree_with_old_cudnn(root);
    auto p = prepare(root, corpus_archive(kRaceArchive));
    std::string target = first(p.plan, Action::Overwrite).target;
    auto real = make_real_filesystem();
    FaultyFileSystem faulty(*real, 0, FaultyFileSystem::Mode::FailOnce);
    before_record(faulty, root, 2, [&] {
      if (std::string(change) == "removed")
        fs::remove(root / target);
      else
        write_file(root / target, kPlanted);
    });
    auto outcome = apply_plan(faulty, root, p.archive, p.plan, {});
    ASSERT_FALSE(outcome) << "replaced a file that changed after the plan: " << target;
    EXPECT_EQ(outcome.error().code, ErrorCode::Conflict);
    EXPECT_NE(outcome.error().message.find(target), std::string::npos) << outcome.error().message;
    EXPECT_NE(outcome.error().message.find(std::string(change) == "removed" ? "disappeared" : "changed"),
              std::string::npos)
        << outcome.error().message;
    EXPECT_NE(outcome.error().message.find("rolled back"), std::string::npos) << outcome.error().message;
    if (std::string(change) == "removed")
      EXPECT_FALSE(fs::exists(fs::symlink_status(root / target)));
    else
      EXPECT_EQ(read_file(root / target), kPlanted);  // the other program's bytes, not ours, not backed up away
    EXPECT_TRUE(stray_temporaries(root).empty());
    EXPECT_FALSE(has_pending_journal(root));
  }
}

TEST(TxnRace, TheRealFilesystemsNoReplaceRenameLeavesWhatIsThere) {
  TempDir dir;
  write_file(dir.path() / "new", "new");
  write_file(dir.path() / "appeared", kPlanted);
  fs::create_symlink("new", dir.path() / "link");
  auto real = make_real_filesystem();
  for (const char* to : {"appeared", "link"}) {
    auto refused = real->rename(dir.path() / "new", dir.path() / to, RenameMode::NoReplace);
    ASSERT_FALSE(refused) << to;
    EXPECT_EQ(refused.error().code, ErrorCode::Conflict);
  }
  EXPECT_EQ(read_file(dir.path() / "appeared"), kPlanted);
  EXPECT_EQ(fs::read_symlink(dir.path() / "link"), "new");
  ASSERT_TRUE(real->rename(dir.path() / "new", dir.path() / "free", RenameMode::NoReplace));
  EXPECT_EQ(read_file(dir.path() / "free"), "new");
  EXPECT_FALSE(fs::exists(dir.path() / "new"));
}

// The link(2) + unlink(2) fallback of a create (a filesystem without RENAME_NOREPLACE) crashed
// between the two: the new file is at its target and still at its temporary name, one inode. The
// target is the transaction's own file then, and recovery removes both names.
TEST(TxnRace, ACrashBetweenTheFallbacksLinkAndUnlinkIsRecoveredWhole) {
  RaceTree t;
  const fs::path& root = t.root;
  const std::string& target = t.target;
  auto& real = t.real;
  auto& p = t.p;
  const Snapshot& before = t.before;
  // The swap's rename of that create's temporary (".cudnn-install-<id>-<step>.tmp" beside the target).
  const std::string temp_suffix = "-" + std::to_string(step_of(p.plan, target)) + ".tmp";
  auto is_the_create = [&](const char* op, const fs::path& from) {
    return std::string(op) == "rename" && from.parent_path() == (root / target).parent_path() &&
           from.filename().string().starts_with(".cudnn-install-") && from.filename().string().ends_with(temp_suffix);
  };
  // The crash is an exception out of the filesystem: nothing after it runs, as after a kill.
  FaultyFileSystem crashing(*real, 0, FaultyFileSystem::Mode::FailOnce);
  bool linked = false;
  crashing.before_op = [&](const char* op, const fs::path& from) {
    if (linked || !is_the_create(op, from)) return;
    fs::create_hard_link(from, root / target);  // link(2) done; the crash comes before unlink(2)
    linked = true;
    throw std::runtime_error("crash");
  };
  try {
    (void)apply_plan(crashing, root, p.archive, p.plan, {});
  } catch (const std::runtime_error&) {
  }
  ASSERT_TRUE(linked);
  ASSERT_EQ(fs::hard_link_count(root / target), 2u) << "the file under both names, as the crash left it";
  auto recovered = recover(*real, root);
  ASSERT_TRUE(recovered) << recovered.error().message;
  EXPECT_EQ(recovered->what, Recovery::What::RolledBack);
  EXPECT_EQ(diff(before, snapshot(root)), "") << "both names gone, the rest as before";
  EXPECT_TRUE(stray_temporaries(root).empty());
}
