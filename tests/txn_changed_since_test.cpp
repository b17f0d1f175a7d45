// Issue 18, class 5, after the commit: a --rollback (or uninstall) of a transaction deletes what it
// created and puts back what it replaced or removed. A file another program or a person changed
// or put at one of those targets since would be lost, so the undo first compares every target
// with what the commit record says the transaction left there, and refuses (changing nothing)
// while any differs. A file rewritten with the same bytes is not a change.
#include <gtest/gtest.h>

#include "cudnn_install/preview.hpp"
#include "cudnn_install/state_dir.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_journal.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* kArchive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";

// The first step of the plan with this action and entry type.
std::string first(const Plan& plan, Action action, EntryType type) {
  for (const auto& s : plan.steps)
    if (s.action == action && s.type == type) return s.target;
  throw std::runtime_error("the scenario's plan has no such step");
}

struct Installed {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  Snapshot before;
  Plan plan;
  std::unique_ptr<FileSystem> real = make_real_filesystem();
  Installed() {
    make_tree_with_old_cudnn(root);
    before = snapshot(root);
    plan = prepare(root, corpus_archive(kArchive)).plan;
    auto done = install_through(*real, root, corpus_archive(kArchive), Reading::Spool);
    if (!done) throw std::runtime_error(done.error().message);
  }
  std::size_t history() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(state_dir(root) / "history"), {}));
  }
};

// Each way a target can stop being what the transaction left: refused, nothing changed, the
// target named; once the change is moved out of the way, the rollback goes through.
void expect_refused_until_moved(Installed& t, const std::string& target, const std::string& why,
                                const std::function<void()>& change) {
  SCOPED_TRACE(target);
  change();
  Snapshot changed = snapshot(t.root, "");
  PreviewFileSystem preview(*t.real);
  auto predicted = rollback_last(preview, t.root);
  ASSERT_FALSE(predicted) << "a dry run predicts the refusal";
  EXPECT_TRUE(preview.changes().empty());
  auto refused = rollback_last(*t.real, t.root);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::Conflict);
  EXPECT_EQ(refused.error().message, predicted.error().message);
  EXPECT_NE(refused.error().message.find("\n  " + target + " (" + why), std::string::npos) << refused.error().message;
  EXPECT_NE(refused.error().message.find("Nothing was changed"), std::string::npos);
  EXPECT_EQ(diff(changed, snapshot(t.root, "")), "") << "the toolkit and its state directory as they were";
  EXPECT_EQ(t.history(), 1u);
  EXPECT_FALSE(has_pending_journal(t.root));

  fs::rename(t.root / target, t.dir.path() / "moved-away");
  auto rolled = rollback_last(*t.real, t.root);
  ASSERT_TRUE(rolled) << rolled.error().message;
  EXPECT_EQ(diff(t.before, snapshot(t.root)), "") << "what the transaction replaced or removed is back";
}

}  // namespace

TEST(TxnChangedSince, ACreatedFileWithOtherBytesIsNotDeleted) {
  Installed t;
  std::string target = first(t.plan, Action::Create, EntryType::File);
  expect_refused_until_moved(t, target, "it holds other bytes now", [&] {
    std::string bytes = read_file(t.root / target);
    bytes[bytes.size() / 2] ^= 0x20;  // the same size: only the content tells
    write_file(t.root / target, bytes);
  });
}

TEST(TxnChangedSince, AReplacedFileWithOtherBytesIsNotOverwritten) {
  Installed t;
  std::string target = first(t.plan, Action::Overwrite, EntryType::File);
  expect_refused_until_moved(t, target, "it holds other bytes now",
                             [&] { write_file(t.root / target, "a newer build of it, put there by hand\n"); });
}

TEST(TxnChangedSince, ARepointedSymlinkIsNotDeleted) {
  Installed t;
  std::string target = first(t.plan, Action::Create, EntryType::Symlink);
  expect_refused_until_moved(t, target, "it points to 'elsewhere.so' now", [&] {
    fs::remove(t.root / target);
    fs::create_symlink("elsewhere.so", t.root / target);
  });
}

TEST(TxnChangedSince, AFileAtATargetTheTransactionRemovedIsNotOverwritten) {
  Installed t;
  std::string target = first(t.plan, Action::Remove, EntryType::File);
  expect_refused_until_moved(t, target, "something was put there after the transaction removed",
                             [&] { write_file(t.root / target, "another program's file\n"); });
}

TEST(TxnChangedSince, AFileRewrittenWithTheSameBytesIsNoChange) {
  Installed t;
  std::string target = first(t.plan, Action::Create, EntryType::File);
  std::string bytes = read_file(t.root / target);
  fs::remove(t.root / target);
  write_file(t.root / target, bytes);  // a new inode and times: the stamp no longer counts, the bytes do
  auto rolled = rollback_last(*t.real, t.root);
  ASSERT_TRUE(rolled) << rolled.error().message;
  EXPECT_EQ(diff(t.before, snapshot(t.root)), "");
}

TEST(TxnChangedSince, ATransactionOfAnEarlierBuildWithoutTheListIsRolledBackAsBefore) {
  Installed t;
  auto ids = fs::directory_iterator(state_dir(t.root) / "history");
  fs::path file = ids->path();
  std::string text = read_file(file);
  std::size_t commit = text.rfind('\n', text.size() - 2) + 1;
  write_file(file, text.substr(0, commit) + marker_record("commit"));  // the bare commit earlier builds wrote
  std::string target = first(t.plan, Action::Create, EntryType::File);
  write_file(t.root / target, "changed\n");
  auto rolled = rollback_last(*t.real, t.root);
  ASSERT_TRUE(rolled) << "nothing to compare with: " << rolled.error().message;
  EXPECT_FALSE(fs::exists(t.root / target));
}

// A header of the first install edited by hand, then a second install over it: uninstall undoes the
// second (putting the edited header back) and stops at the first, which would overwrite the edit.
// Its message says what was undone before, since "nothing was changed" is about the first alone.
TEST(TxnChangedSince, UninstallSaysWhatItUndidBeforeStoppingAtAChangedFile) {
  Installed t;
  write_file(t.root / "include/cudnn.h", "edited by hand after the first install\n");
  Snapshot edited = snapshot(t.root);
  ASSERT_TRUE(install_through(*t.real, t.root, corpus_archive(kArchive), Reading::Spool));
  ASSERT_EQ(t.history(), 2u);
  auto stopped = uninstall_all(*t.real, t.root);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, ErrorCode::Conflict);
  EXPECT_NE(stopped.error().message.find("uninstall undid 1 transaction(s) first, each one whole"), std::string::npos)
      << stopped.error().message;
  EXPECT_NE(stopped.error().message.find("1 remain"), std::string::npos) << stopped.error().message;
  EXPECT_NE(stopped.error().message.find("include/cudnn.h (it holds other bytes now"), std::string::npos)
      << stopped.error().message;
  EXPECT_EQ(diff(edited, snapshot(t.root)), "") << "the second install undone, the edit kept";
  EXPECT_EQ(t.history(), 1u);
}
