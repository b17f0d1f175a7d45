// Issue 18, class 4: transactions are ordered by a sequence number kept in the state directory,
// never by the clock. A clock set back between installs must not change which transaction is the
// newest: --rollback undoes exactly that one and retention never prunes it.
#include <gtest/gtest.h>

#include <chrono>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_journal.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

const char* kOrderArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";

// Installs `count` times, each over a different cudnn.h, with the clock one hour earlier each time.
std::vector<std::string> install_with_clock_going_back(const fs::path& root, FileSystem& fs, int count) {
  auto now = std::chrono::system_clock::now();
  std::vector<std::string> ids;
  for (int i = 0; i < count; ++i) {
    write_file(root / "include/cudnn.h", "changed " + std::to_string(i));
    auto p = prepare(root, corpus_archive(kOrderArchive));
    ApplyOptions options;
    options.clock = [t = now - i * 1h] { return t; };
    auto outcome = apply_plan(fs, root, p.archive, p.plan, options);
    if (!outcome) throw std::runtime_error(outcome.error().message);
    ids.push_back(outcome->id);
  }
  return ids;
}

TEST(TxnOrder, HistoryIsInTheOrderOfTheInstallsNotOfTheClock) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto fs = make_real_filesystem();
  auto ids = install_with_clock_going_back(root, *fs, 2);
  auto history = read_history(*fs, root);
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].id, ids[0]);
  EXPECT_EQ((*history)[1].id, ids[1]);
}

TEST(TxnOrder, RollbackUndoesTheNewestWhateverTheClockSaid) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto fs = make_real_filesystem();
  auto ids = install_with_clock_going_back(root, *fs, 2);
  auto undone = rollback_last(*fs, root);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(undone->id, ids[1]);
  EXPECT_EQ(read_file(root / "include/cudnn.h"), "changed 1");  // what the second install replaced
}

TEST(TxnOrder, RetentionNeverPrunesTheNewest) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto fs = make_real_filesystem();
  auto ids = install_with_clock_going_back(root, *fs, static_cast<int>(kKeptTransactions) + 2);
  auto history = read_history(*fs, root);
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), kKeptTransactions);
  for (std::size_t i = 0; i < kKeptTransactions; ++i)  // the newest ones, oldest first
    EXPECT_EQ((*history)[i].id, ids[ids.size() - kKeptTransactions + i]);
  EXPECT_TRUE(fs::exists(root / ".cudnn-install/backup" / ids.back()));
}

}  // namespace

// An install interrupted after a committed one: --rollback finds the recovery undid the newest
// change, says so, and leaves the committed install alone (one --rollback, one transaction).
TEST(TxnOrder, RecoveringAnInterruptedInstallIsNotCountedAsTheUsersRollback) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  std::string out;
  ASSERT_EQ(run_command(cli() + " --yes -q --no-verify --cuda-root " + root.string() + " " +
                            archive_args(corpus_archive(kOrderArchive)) + " </dev/null 2>&1",
                        &out),
            0)
      << out;
  auto installed = snapshot(root);
  // Transaction 2 interrupted after it swapped include/cudnn.h (as a crash leaves it).
  std::string id = "000002-20260101T000000.000Z-1";
  BeginRecord b;
  b.id = id;
  b.operation = "install";
  b.steps.push_back({JournalStep::Kind::Place, "include/cudnn.h", txn_paths::temp_for("include/cudnn.h", id, 0),
                     txn_paths::backup_for(id, 0)});
  fs::create_directories(root / txn_paths::backup_dir(id));
  fs::rename(root / "include/cudnn.h", root / txn_paths::backup_for(id, 0));
  write_file(root / "include/cudnn.h", "interrupted");
  write_file(txn_paths::journal(root), begin_record(b) + marker_record("staged"));
  ASSERT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root.string() + " </dev/null 2>&1", &out), 0) << out;
  EXPECT_NE(out.find("the interrupted transaction " + id + " was rolled back"), std::string::npos) << out;
  EXPECT_NE(out.find("No committed transaction was undone"), std::string::npos) << out;
  EXPECT_EQ(diff(installed, snapshot(root)), "");  // the committed install stands
  ASSERT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root.string() + " </dev/null 2>&1", &out), 0) << out;
  EXPECT_NE(out.find("rolled back transaction 000001-"), std::string::npos) << out;  // then the committed one
}
