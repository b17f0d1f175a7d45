// The transaction under every failure the tests can produce: a fault at each filesystem operation
// (rolled back on the spot), a crash at each operation (recovered by the next run), and a journal
// cut at every byte. The tree must always end exactly as before or exactly as after.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_journal.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
const char* kSmallArchive = "cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz";

// How an install gets its files, and into what tree.
struct Scenario {
  const char* label;
  const char* archive;
  Reading reading;
  void (*make_tree)(const fs::path& root);
};
const Scenario kScenarios[] = {
    {"tar.xz read again at staging", kArchive, Reading::Archive, make_tree_with_old_cudnn},
    {"tar.xz spooled", kArchive, Reading::Spool, make_tree_with_old_cudnn},
    {"zip inflated on two threads", "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip", Reading::Archive,
     make_windows_tree_with_old_cudnn},
};

struct Reference {
  Snapshot before, after;
  int total_ops = 0;
  int apply_op = 0;        // the first operation of apply_plan (after the spool was filled)
  int commit_op = 0;       // the operation that appends the commit record
  int state_file_ops = 0;  // operations on stamps.json and archives.json (after the commit)
};

// One successful install, counted, gives the before and after trees and the operation numbers.
Reference reference_install(const Scenario& scenario) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  scenario.make_tree(root);
  Reference ref;
  ref.before = snapshot(root);
  auto real = make_real_filesystem();
  FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
  int appends = 0;
  counting.before_op = [&](const char* op, const fs::path& path) {
    if (std::string(op) == "append_durable" && ++appends == 1) ref.apply_op = counting.operations();
    if (std::string(op) == "append_durable" && appends == 3) ref.commit_op = counting.operations();
    auto name = path.filename().string();
    if (name.starts_with("stamps.json") || name.starts_with("archives.json")) ++ref.state_file_ops;
  };
  auto outcome = install_through(counting, root, corpus_archive(scenario.archive), scenario.reading);
  if (!outcome) throw std::runtime_error(outcome.error().message);
  ref.total_ops = counting.operations();
  ref.after = snapshot(root);
  return ref;
}

const Reference& reference(const Scenario& scenario = kScenarios[0]) {
  static std::map<std::string, Reference> refs;
  if (!refs.count(scenario.label)) refs[scenario.label] = reference_install(scenario);
  return refs[scenario.label];
}

// A fresh toolkit holding the old cuDNN of the scenario, removed at the end of the scope.
struct OldTree {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  explicit OldTree(const Scenario& scenario) { scenario.make_tree(root); }
};

}  // namespace

TEST(Txn, FaultAtEveryOperationRollsBackOnTheSpot) {
  for (const Scenario& scenario : kScenarios) {
    const Reference& ref = reference(scenario);
    ASSERT_GT(ref.total_ops, 50);
    ASSERT_GT(ref.commit_op, ref.apply_op);
    ASSERT_GT(ref.state_file_ops, 4);  // both state files written through the faulty filesystem
    EXPECT_EQ(ref.apply_op > 20, scenario.reading == Reading::Spool);
    for (int n : operations_to_try(ref.total_ops, {ref.apply_op, ref.commit_op, ref.commit_op + 1})) {
      SCOPED_TRACE(std::string(scenario.label) + ", operation " + std::to_string(n));
      OldTree tree(scenario);
      const fs::path& root = tree.root;
      auto real = make_real_filesystem();
      FaultyFileSystem faulty(*real, n, FaultyFileSystem::Mode::FailOnce);
      auto outcome = install_through(faulty, root, corpus_archive(scenario.archive), scenario.reading);
      if (n <= ref.commit_op) {
        ASSERT_FALSE(outcome);
        EXPECT_EQ(outcome.error().code, ErrorCode::Io);
        EXPECT_NE(outcome.error().message.find("injected fault"), std::string::npos);
        bool said = outcome.error().message.find("rolled back") != std::string::npos ||
                    outcome.error().message.find("nothing was changed") != std::string::npos;
        EXPECT_TRUE(said || n < ref.apply_op) << outcome.error().message;
        EXPECT_EQ(diff(ref.before, snapshot(root)), "");
        EXPECT_FALSE(has_pending_journal(root));
      } else {
        ASSERT_TRUE(outcome) << outcome.error().message;  // a state file that could not be written costs a warning
        EXPECT_EQ(diff(ref.after, snapshot(root)), "");
      }
      EXPECT_TRUE(stray_temporaries(root).empty());
      EXPECT_EQ(state_temporaries(root), std::vector<std::string>{});
      auto recovered = recover(*real, root);  // and the next run finds everything in order
      ASSERT_TRUE(recovered);
      EXPECT_EQ(diff(n <= ref.commit_op ? ref.before : ref.after, snapshot(root)), "");
      EXPECT_FALSE(fs::exists(spool_dir(root)));
    }
  }
}

TEST(Txn, CrashAtEveryOperationIsRecoveredByTheNextRun) {
  for (const Scenario& scenario : kScenarios) {
    const Reference& ref = reference(scenario);
    for (int n : operations_to_try(ref.total_ops, {ref.apply_op, ref.commit_op, ref.commit_op + 1})) {
      SCOPED_TRACE(std::string(scenario.label) + ", crash at operation " + std::to_string(n));
      OldTree tree(scenario);
      const fs::path& root = tree.root;
      auto real = make_real_filesystem();
      FaultyFileSystem crashing(*real, n, FaultyFileSystem::Mode::Crash);
      (void)install_through(crashing, root, corpus_archive(scenario.archive), scenario.reading);
      auto recovered = recover(*real, root);
      ASSERT_TRUE(recovered) << recovered.error().message;
      const Snapshot& expected = n <= ref.commit_op ? ref.before : ref.after;
      EXPECT_EQ(diff(expected, snapshot(root)), "");
      EXPECT_TRUE(stray_temporaries(root).empty());
      EXPECT_FALSE(has_pending_journal(root));
      EXPECT_FALSE(fs::exists(spool_dir(root)));
    }
  }
}

TEST(Txn, RollbackSurvivesAFaultOrCrashAtEveryOperation) {
  const Reference& ref = reference();
  TempDir installed_dir;
  fs::path installed = installed_dir.path() / "cuda";
  make_tree_with_old_cudnn(installed);
  auto real = make_real_filesystem();
  auto p = prepare(installed, corpus_archive(kArchive));
  ASSERT_TRUE(apply_plan(*real, installed, p.archive, p.plan, {}));
  Snapshot with_state = snapshot(installed, "");
  FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
  {
    TempDir d;
    materialize(with_state, d.path() / "cuda");
    ASSERT_TRUE(rollback_last(counting, d.path() / "cuda"));
  }
  const int undo_begin_op = 1;  // the first operation appends "undo-begin"
  for (auto mode : {FaultyFileSystem::Mode::FailOnce, FaultyFileSystem::Mode::Crash}) {
    for (int n = 1; n <= counting.operations(); ++n) {
      TempDir dir;
      fs::path root = dir.path() / "cuda";
      materialize(with_state, root);
      FaultyFileSystem faulty(*real, n, mode);
      auto undone = rollback_last(faulty, root);
      if (!undone && n > undo_begin_op) {
        EXPECT_NE(undone.error().message.find("again to finish"), std::string::npos) << undone.error().message;
      }
      ASSERT_TRUE(recover(*real, root)) << "operation " << n;
      const Snapshot& expected = n > undo_begin_op || undone ? ref.before : ref.after;
      EXPECT_EQ(diff(expected, snapshot(root)), "") << "operation " << n;
      EXPECT_TRUE(stray_temporaries(root).empty());
    }
  }
}

// A crash tears at most the record being written. For every byte offset of the journal, the
// tree is taken as it was when that byte was being written; recovery must give before or after.
TEST(Txn, JournalCutAtEveryByteOrWithACorruptLastRecord) {
  const Scenario small{"small tar.xz", kSmallArchive, Reading::Archive, make_tree_with_old_cudnn};
  const Reference& ref = reference(small);
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto real = make_real_filesystem();
  FaultyFileSystem recording(*real, 0, FaultyFileSystem::Mode::FailOnce);
  struct Event {
    std::size_t offset;
    Snapshot tree;
  };
  std::vector<Event> events;  // before each append to the journal, and before it is filed in history
  fs::path journal = txn_paths::journal(root);
  recording.before_op = [&](const char* op, const fs::path& path) {
    if (path != journal || (std::string(op) != "append_durable" && std::string(op) != "rename")) return;
    std::error_code ec;
    std::size_t size = fs::exists(journal) ? fs::file_size(journal, ec) : 0;
    events.push_back({size, snapshot(root, "")});
  };
  auto p = prepare(root, corpus_archive(kSmallArchive));
  auto outcome = apply_plan(recording, root, p.archive, p.plan, {});
  ASSERT_TRUE(outcome);
  ASSERT_EQ(events.size(), 4u);  // begin, staged, commit, filing
  std::string full = read_file(txn_paths::history_file(root, outcome->id));
  ASSERT_EQ(events.back().offset, full.size());
  auto check = [&](const Snapshot& tree, const std::string& journal_bytes, const std::string& what) {
    TempDir t;
    fs::path r = t.path() / "cuda";
    materialize(tree, r);
    fs::remove(txn_paths::history_file(r, outcome->id));
    write_file(txn_paths::journal(r), journal_bytes);
    auto recovered = recover(*real, r);
    ASSERT_TRUE(recovered) << what << ": " << recovered.error().message;
    bool committed = parse_journal(journal_bytes).committed;
    EXPECT_EQ(diff(committed ? ref.after : ref.before, snapshot(r)), "") << what;
    EXPECT_TRUE(stray_temporaries(r).empty()) << what;
  };
  for (std::size_t t = 0; t <= full.size(); ++t) {
    std::size_t k = 0;
    while (k + 1 < events.size() && events[k + 1].offset <= t && t < full.size()) ++k;
    check(events[t == full.size() ? events.size() - 1 : k].tree, full.substr(0, t), "cut at byte " + std::to_string(t));
  }
  for (std::size_t k = 0; k + 1 < events.size(); ++k) {  // record k written as garbage
    std::string corrupt = full.substr(0, events[k + 1].offset);
    corrupt[events[k].offset + (events[k + 1].offset - events[k].offset) / 2] ^= 0x20;
    check(events[k].tree, corrupt, "record " + std::to_string(k) + " corrupt");
  }
}

TEST(Txn, CreatedDirectoriesAreRemovedByRollback) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_windows_toolkit(root, "13.0.0", true);
  fs::remove_all(root / "lib");
  auto before = snapshot(root);
  auto fs = make_real_filesystem();
  auto p = prepare(root, corpus_archive("cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip"));
  EXPECT_EQ(p.plan.dirs_to_create, (std::vector<std::string>{"lib", "lib/x64"}));
  ASSERT_TRUE(apply_plan(*fs, root, p.archive, p.plan, {}));
  EXPECT_TRUE(fs::exists(root / "lib/x64/cudnn.lib"));
  EXPECT_TRUE(fs::exists(root / "bin/x64/cudnn64_9.dll"));
  ASSERT_TRUE(rollback_last(*fs, root));
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

TEST(Txn, OnlyTheLastTransactionsKeepBackups) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto fs = make_real_filesystem();
  for (int i = 0; i < 5; ++i) {
    write_file(root / "include/cudnn.h", "changed " + std::to_string(i));  // so every install changes something
    auto p = prepare(root, corpus_archive(kArchive));
    ASSERT_TRUE(apply_plan(*fs, root, p.archive, p.plan, {}));
  }
  auto history = read_history(*fs, root);
  ASSERT_TRUE(history);
  EXPECT_EQ(history->size(), kKeptTransactions);
  std::size_t backup_dirs = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(state_dir(root) / "backup")) ++backup_dirs;
  EXPECT_EQ(backup_dirs, kKeptTransactions);
}

// Issue 18, class 9: the space needed is what will really be written on each filesystem (the spool
// for a tar.xz, the staged files for a zip or a remembered archive) plus a small margin, asked of
// the filesystem before anything is written. With just too little, nothing changes; with just
// enough (far below the old 256 MiB reserve), the install goes through.
TEST(Txn, SpaceIsCheckedBeforeWritingAgainstWhatWillReallyBeWritten) {
  for (const auto& scenario : kScenarios) {
    auto real = make_real_filesystem();
    for (std::uint64_t available : {std::uint64_t(64) << 10, std::uint64_t(1) << 20}) {  // below the margin
      TempDir dir;
      fs::path root = dir.path() / "cuda";
      scenario.make_tree(root);
      fs::create_directories(state_dir(root));  // the CLI's lock file made it
      auto before = snapshot(root);
      FaultyFileSystem nearly_full(*real, 0, FaultyFileSystem::Mode::FailOnce);
      nearly_full.space_answer = [&](const fs::path&) { return std::optional(FreeSpace{1, available, 4096}); };
      auto outcome = install_through(nearly_full, root, corpus_archive(scenario.archive), scenario.reading);
      ASSERT_FALSE(outcome) << scenario.label;
      (void)remove_spool(*real, spool_dir(root));  // as the CLI does when the command ends
      EXPECT_NE(outcome.error().message.find("not enough space"), std::string::npos) << outcome.error().message;
      EXPECT_EQ(diff(before, snapshot(root)), "") << scenario.label;
      EXPECT_TRUE(stray_temporaries(root).empty()) << scenario.label;
    }
    TempDir dir;  // a few MiB free: enough for these small archives, whatever the old reserve said
    fs::path root = dir.path() / "cuda";
    scenario.make_tree(root);
    FaultyFileSystem small_disk(*real, 0, FaultyFileSystem::Mode::FailOnce);
    small_disk.space_answer = [&](const fs::path&) { return std::optional(FreeSpace{1, 3u << 20, 4096}); };
    auto outcome = install_through(small_disk, root, corpus_archive(scenario.archive), scenario.reading);
    EXPECT_TRUE(outcome) << scenario.label << ": " << (outcome ? "" : outcome.error().message);
  }
}

// Issue 18, class 1: undo never wedges. A step it cannot inspect or reverse, with every errno that
// lstat, rename, unlink and rmdir can return, is reported precisely (its target and the error)
// while every other step is still undone; the journal keeps the rollback, so the next run finishes
// it once the cause is gone. (lstat's ENOENT, ENOTDIR and ENAMETOOLONG mean "nothing there": they
// are answers, not failures, and a filesystem that gave them for a file that is there would lie.)
TEST(Txn, UndoReportsAStepItCannotReverseAndStillUndoesEveryOther) {
  const Reference& ref = reference();
  TempDir installed_dir;
  fs::path installed = installed_dir.path() / "cuda";
  make_tree_with_old_cudnn(installed);
  auto real = make_real_filesystem();
  auto p = prepare(installed, corpus_archive(kArchive));
  auto outcome = apply_plan(*real, installed, p.archive, p.plan, {});
  ASSERT_TRUE(outcome);
  Snapshot with_state = snapshot(installed, "");
  auto begin = parse_journal(read_file(txn_paths::history_file(installed, outcome->id))).begin;
  ASSERT_TRUE(begin);
  const JournalStep *overwrite = nullptr, *create = nullptr;
  for (const auto& s : begin->steps) {
    if (s.kind != JournalStep::Kind::Place) continue;
    if (s.had_old() && !overwrite) overwrite = &s;
    if (!s.had_old() && !create) create = &s;
  }
  ASSERT_TRUE(overwrite && create);
  struct Fault {
    const char* op;
    std::string JournalStep::*path;  // which of the step's paths the operation names
    const JournalStep* step;
    std::vector<int> errs;
  } faults[] = {
      {"lstat",
       &JournalStep::backup,
       overwrite,
       {EACCES, EBADF, EFAULT, ELOOP, ENAMETOOLONG, ENOENT, ENOMEM, ENOTDIR, EOVERFLOW, EIO}},
      {"rename",
       &JournalStep::target,
       overwrite,
       {EACCES, EBUSY, EDQUOT, EFAULT, EINVAL, EISDIR, ELOOP, EMLINK, ENAMETOOLONG, ENOENT, ENOMEM, ENOSPC, ENOTDIR,
        ENOTEMPTY, EEXIST, EPERM, EROFS, EXDEV, EIO}},
      {"remove",
       &JournalStep::target,
       create,  // unlink(2), and rmdir(2) for a directory
       {EACCES, EBUSY, EFAULT, EINVAL, EIO, EISDIR, ELOOP, ENAMETOOLONG, ENOENT, ENOMEM, ENOTDIR, ENOTEMPTY, EPERM,
        EROFS}},
  };
  for (const auto& f : faults)
    for (int err : f.errs) {
      if (std::string(f.op) == "lstat" && lstat_says_absent(err)) continue;
      SCOPED_TRACE(std::string(f.op) + " " + std::strerror(err));
      TempDir dir;
      fs::path root = dir.path() / "cuda";
      materialize(with_state, root);
      FaultyFileSystem faulty(*real, 0, FaultyFileSystem::Mode::FailOnce);
      faulty.errno_fault = FaultyFileSystem::ErrnoFault{f.op, root / (f.step->*f.path), err};
      auto undone = rollback_last(faulty, root);
      ASSERT_FALSE(undone);
      if (std::string(f.op) == "lstat") {  // --rollback looks at every backup before touching anything
        EXPECT_NE(undone.error().message.find("injected lstat"), std::string::npos) << undone.error().message;
        EXPECT_NE(undone.error().message.find("Nothing was changed"), std::string::npos) << undone.error().message;
        EXPECT_EQ(diff(with_state, snapshot(root, "")), "");
        ASSERT_TRUE(rollback_last(*real, root));  // the cause gone, it runs
        EXPECT_EQ(diff(ref.before, snapshot(root)), "");
        continue;
      }
      EXPECT_NE(undone.error().message.find("'" + f.step->target + "': injected " + f.op), std::string::npos)
          << undone.error().message;
      EXPECT_NE(undone.error().message.find(std::strerror(err)), std::string::npos) << undone.error().message;
      EXPECT_NE(undone.error().message.find("every other step was undone"), std::string::npos);
      Snapshot expected = ref.before, now = snapshot(root);
      expected.erase(f.step->target);
      now.erase(f.step->target);
      EXPECT_EQ(diff(expected, now), "");     // all but the one step are undone
      auto recovered = recover(*real, root);  // the cause gone: the next run finishes the rollback
      ASSERT_TRUE(recovered) << recovered.error().message;
      EXPECT_EQ(diff(ref.before, snapshot(root)), "");
      EXPECT_FALSE(has_pending_journal(root));
    }
}
