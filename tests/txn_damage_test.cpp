// Issue 18, class 8: damaged or missing state is reported, never hidden or guessed around. A crash
// tears only the journal's last record; anything else (a broken record with more after it, a broken
// "begin" whose transaction had started, backups deleted by hand) refuses to act, changes nothing
// and says what was found.
#include <gtest/gtest.h>

#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_journal.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kSbsaArchive = "cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz";

// A tree with the archive installed (committed), and the id of that transaction.
std::string installed(const fs::path& root, FileSystem& fs) {
  make_tree_with_old_cudnn(root);
  auto p = prepare(root, corpus_archive(kSbsaArchive));
  auto outcome = apply_plan(fs, root, p.archive, p.plan, {});
  if (!outcome) throw std::runtime_error(outcome.error().message);
  return outcome->id;
}

// The committed transaction turned back into an interrupted one: its journal without "commit".
std::string uncommitted_journal(const fs::path& root, const std::string& id) {
  std::string text = read_file(txn_paths::history_file(root, id));
  fs::remove(txn_paths::history_file(root, id));
  std::size_t commit = text.rfind(marker_record("commit"));
  return text.substr(0, commit);
}

}  // namespace

TEST(TxnDamage, ATornTailIsNotDamageButABrokenRecordWithMoreAfterItIs) {
  BeginRecord b;
  b.id = "000001-20260101T000000.000Z-1";
  b.steps.push_back({JournalStep::Kind::Place, "include/cudnn.h", "include/.t", ""});
  std::string begin = begin_record(b), staged = marker_record("staged"), commit = marker_record("commit");
  EXPECT_EQ(parse_journal(begin + staged.substr(0, 5)).damage, "");  // cut while appending
  std::string last_broken = begin + staged;
  last_broken[begin.size() + 12] ^= 0x01;
  EXPECT_EQ(parse_journal(last_broken).damage, "");  // the last record garbled: torn
  std::string middle_broken = begin + staged + commit;
  middle_broken[begin.size() + 12] ^= 0x01;
  EXPECT_NE(parse_journal(middle_broken).damage, "");
  std::string begin_broken = begin + staged;
  begin_broken[40] ^= 0x01;
  auto st = parse_journal(begin_broken);
  EXPECT_FALSE(st.begin);
  EXPECT_NE(st.damage.find("record 1 is corrupt"), std::string::npos) << st.damage;
  EXPECT_NE(parse_journal(commit).damage, "");  // intact but out of order: never written so
}

TEST(TxnDamage, RecoveryRefusesABeginRecordDamagedAfterItWasDurable) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  auto fs = make_real_filesystem();
  std::string id = installed(root, *fs);
  std::string journal = uncommitted_journal(root, id);  // begin + staged
  journal[40] ^= 0x01;                                  // inside "begin", with "staged" after it
  write_file(txn_paths::journal(root), journal);
  auto tree = snapshot(root, "");
  auto recovered = recover(*fs, root);
  ASSERT_FALSE(recovered);
  EXPECT_EQ(recovered.error().code, ErrorCode::Conflict);
  EXPECT_NE(recovered.error().message.find("is damaged: record 1 is corrupt"), std::string::npos)
      << recovered.error().message;
  EXPECT_EQ(diff(tree, snapshot(root, "")), "");  // journal, backups and installed files all kept
}

TEST(TxnDamage, RecoveryRefusesATornBeginWhoseTransactionHadStarted) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  auto fs = make_real_filesystem();
  std::string id = installed(root, *fs);
  std::string journal = uncommitted_journal(root, id);
  write_file(txn_paths::journal(root), journal.substr(0, journal.find('\n') - 10));  // "begin" cut short
  auto tree = snapshot(root, "");
  auto recovered = recover(*fs, root);
  ASSERT_FALSE(recovered);
  EXPECT_NE(recovered.error().message.find("had started (its backup directory exists)"), std::string::npos)
      << recovered.error().message;
  EXPECT_EQ(diff(tree, snapshot(root, "")), "");
}

TEST(TxnDamage, RollbackChecksEveryBackupBeforeTouchingAnything) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  auto fs = make_real_filesystem();
  std::string id = installed(root, *fs);
  fs::path backups = root / txn_paths::backup_dir(id);
  ASSERT_FALSE(fs::is_empty(backups));
  std::string gone = fs::directory_iterator(backups)->path().filename().string();
  fs::remove(backups / gone);  // deleted by hand
  auto tree = snapshot(root, "");
  auto undone = rollback_last(*fs, root);
  ASSERT_FALSE(undone);
  EXPECT_EQ(undone.error().code, ErrorCode::Conflict);
  EXPECT_NE(undone.error().message.find("backup(s) of transaction " + id + " are missing"), std::string::npos)
      << undone.error().message;
  EXPECT_NE(undone.error().message.find(txn_paths::backup_dir(id) + "/" + gone), std::string::npos)
      << undone.error().message;
  EXPECT_EQ(diff(tree, snapshot(root, "")), "");
}
