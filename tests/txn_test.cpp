// The transaction under every failure the tests can produce: a fault at each filesystem operation
// (rolled back on the spot), a crash at each operation (recovered by the next run), and a journal
// cut at every byte. The tree must always end exactly as before or exactly as after.
#include <gtest/gtest.h>

#include <map>

#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
const char* kSmallArchive = "cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz";

struct Reference {
  Snapshot before, after;
  int total_ops = 0;
  int apply_op = 0;   // the first operation of apply_plan (after the spool was filled)
  int commit_op = 0;  // the operation that appends the commit record
};

// One successful install, counted, gives the before and after trees and the operation numbers.
Reference reference_install(const char* archive, Reading reading) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  Reference ref;
  ref.before = snapshot(root);
  auto real = make_real_filesystem();
  FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
  int appends = 0;
  counting.before_op = [&](const char* op, const fs::path&) {
    if (std::string(op) == "append_durable" && ++appends == 1) ref.apply_op = counting.operations();
    if (std::string(op) == "append_durable" && appends == 3) ref.commit_op = counting.operations();
  };
  auto outcome = install_through(counting, root, corpus_archive(archive), reading);
  if (!outcome) throw std::runtime_error(outcome.error().message);
  ref.total_ops = counting.operations();
  ref.after = snapshot(root);
  return ref;
}

const Reference& reference(Reading reading = Reading::Archive, const char* archive = kArchive) {
  static std::map<std::pair<std::string, Reading>, Reference> refs;
  auto key = std::pair(std::string(archive), reading);
  if (!refs.count(key)) refs[key] = reference_install(archive, reading);
  return refs[key];
}

// A fresh toolkit holding the old cuDNN of the scenario, removed at the end of the scope.
struct OldTree {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  OldTree() { make_tree_with_old_cudnn(root); }
};

const char* name(Reading r) { return r == Reading::Spool ? "spooled" : "from the archive"; }

}  // namespace

TEST(Txn, InstallThenRollbackIsByteExact) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto before = snapshot(root);
  auto fs = make_real_filesystem();
  auto p = prepare(root, corpus_archive(kArchive));
  EXPECT_EQ(p.plan.count(Action::SkipIdentical), 2u);  // include/cudnn_adv.h, lib/libcudnn.so -> libcudnn.so.9
  EXPECT_EQ(p.plan.count(Action::Remove), 2u);  // libcudnn_ops.so.9.1.0, libcudnn.so.9.1.0
  auto outcome = apply_plan(*fs, root, p.archive, p.plan, {});
  ASSERT_TRUE(outcome) << outcome.error().message;
  auto after = snapshot(root);
  EXPECT_EQ(after.at("lib/libcudnn.so.9").type, 'l');
  EXPECT_EQ(after.at("lib/libcudnn.so.9").link_target, "libcudnn.so.9.19.0");
  EXPECT_EQ(after.count("lib/libcudnn.so.9.1.0"), 0u);
  EXPECT_EQ(after.at("lib/libcudnn_ops_infer.so.8").content, "cudnn 8 kept\n");
  EXPECT_EQ(after.at("lib64").type, 'l') << "the lib64 -> lib symlink must stay a symlink";
  EXPECT_TRUE(stray_temporaries(root).empty());
  auto undone = rollback_last(*fs, root);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(diff(before, snapshot(root)), "");
  EXPECT_TRUE(stray_temporaries(root).empty());
  EXPECT_TRUE(fs::is_empty(state_dir(root) / "backup"));
  auto again = rollback_last(*fs, root);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::NothingToUndo);
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

TEST(Txn, ReinstallOfTheSameArchiveWritesNothing) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto fs = make_real_filesystem();
  auto p = prepare(root, corpus_archive(kArchive));
  ASSERT_TRUE(apply_plan(*fs, root, p.archive, p.plan, {}));
  auto again = prepare(root, corpus_archive(kArchive));
  for (const auto& s : again.plan.steps)
    EXPECT_TRUE(s.action == Action::SkipIdentical || s.action == Action::KeepOther) << s.target << " " << to_string(s.action);
  EXPECT_FALSE(again.plan.changes_anything());
  EXPECT_EQ(again.plan.count(Action::SkipIdentical), again.plan.steps.size() - again.plan.count(Action::KeepOther));
}

TEST(Txn, ASpooledInstallGivesTheSameTreeAsOneThatReadsTheArchiveAgain) {
  EXPECT_EQ(diff(reference(Reading::Archive).after, reference(Reading::Spool).after), "");
}

// Spooling happens before the entry checks: a hostile tar.xz may write numbered copies into the
// spool, but nothing anywhere else, and it is refused before any plan is made.
TEST(Txn, HostileTarsAreRefusedWithNothingWrittenOutsideTheSpool) {
  int seen = 0;
  for (const auto& dir : fs::directory_iterator(fs::path(CORPUS_DIR) / "hostile"))
    for (const auto& file : fs::directory_iterator(dir.path())) {
      if (!file.path().string().ends_with(".tar.xz")) continue;
      SCOPED_TRACE(file.path().string());
      ++seen;
      TempDir tmp;
      fs::path root = tmp.path() / "cuda";
      make_tree_with_old_cudnn(root);
      Snapshot before = snapshot(root, "");
      auto real = make_real_filesystem();
      fs::create_directories(state_dir(root));
      auto spooled = inspect_and_spool(file.path(), NameCheck::Enforce, *real, spool_dir(root));
      EXPECT_FALSE(spooled);
      ASSERT_TRUE(remove_spool(*real, spool_dir(root)));
      fs::remove(state_dir(root));
      EXPECT_EQ(diff(before, snapshot(root, "")), "");
    }
  EXPECT_GE(seen, 10);
}

// Both ways of reading the archive; with the spool, faults while it fills come first.
TEST(Txn, FaultAtEveryOperationRollsBackOnTheSpot) {
  for (Reading reading : {Reading::Archive, Reading::Spool}) {
    const Reference& ref = reference(reading);
    ASSERT_GT(ref.total_ops, 50);
    ASSERT_GT(ref.commit_op, ref.apply_op);
    EXPECT_EQ(ref.apply_op > 20, reading == Reading::Spool);
    for (int n = 1; n <= ref.total_ops; ++n) {
      SCOPED_TRACE(std::string(name(reading)) + ", operation " + std::to_string(n));
      OldTree tree;
      const fs::path& root = tree.root;
      auto real = make_real_filesystem();
      FaultyFileSystem faulty(*real, n, FaultyFileSystem::Mode::FailOnce);
      auto outcome = install_through(faulty, root, corpus_archive(kArchive), reading);
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
        ASSERT_TRUE(outcome) << outcome.error().message;
        EXPECT_EQ(diff(ref.after, snapshot(root)), "");
      }
      EXPECT_TRUE(stray_temporaries(root).empty());
      auto recovered = recover(*real, root);  // and the next run finds everything in order
      ASSERT_TRUE(recovered);
      EXPECT_EQ(diff(n <= ref.commit_op ? ref.before : ref.after, snapshot(root)), "");
      EXPECT_FALSE(fs::exists(spool_dir(root)));
    }
  }
}

TEST(Txn, CrashAtEveryOperationIsRecoveredByTheNextRun) {
  for (Reading reading : {Reading::Archive, Reading::Spool}) {
    const Reference& ref = reference(reading);
    for (int n = 1; n <= ref.total_ops; ++n) {
      SCOPED_TRACE(std::string(name(reading)) + ", crash at operation " + std::to_string(n));
      OldTree tree;
      const fs::path& root = tree.root;
      auto real = make_real_filesystem();
      FaultyFileSystem crashing(*real, n, FaultyFileSystem::Mode::Crash);
      (void)install_through(crashing, root, corpus_archive(kArchive), reading);
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
  const Reference& ref = reference(Reading::Archive, kSmallArchive);
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
