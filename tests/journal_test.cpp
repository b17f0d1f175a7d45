#include <gtest/gtest.h>

#include "txn_journal.hpp"

using namespace cudnn_install;

namespace {

BeginRecord sample() {
  BeginRecord b;
  b.id = "20261202T000000.000Z-1";
  b.archive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  b.dirs_created = {"lib"};
  b.steps.push_back({JournalStep::Kind::Place, "lib/libcudnn.so.9", "lib/.t0", ".cudnn-install/backup/x/0"});
  b.steps.push_back({JournalStep::Kind::Remove, "lib/libold.so.9", "", ".cudnn-install/backup/x/1"});
  return b;
}

}  // namespace

TEST(Journal, RoundTrip) {
  std::string text = begin_record(sample()) + marker_record("staged") + marker_record("commit");
  auto st = parse_journal(text);
  ASSERT_TRUE(st.begin);
  EXPECT_EQ(st.begin->steps.size(), 2u);
  EXPECT_EQ(st.begin->steps[0].temp, "lib/.t0");
  EXPECT_TRUE(st.begin->steps[0].had_old());
  EXPECT_EQ(st.begin->steps[1].kind, JournalStep::Kind::Remove);
  EXPECT_TRUE(st.staged);
  EXPECT_TRUE(st.committed);
  EXPECT_EQ(st.valid_bytes, text.size());
}

TEST(Journal, TornOrCorruptRecordsEndTheJournal) {
  std::string begin = begin_record(sample());
  std::string commit = marker_record("commit");
  auto torn = parse_journal(begin + commit.substr(0, commit.size() - 1));  // no newline
  EXPECT_TRUE(torn.begin);
  EXPECT_FALSE(torn.committed);
  std::string flipped = begin + commit;
  flipped[begin.size() + 12] ^= 0x01;  // inside the commit record's JSON: CRC mismatch
  EXPECT_FALSE(parse_journal(flipped).committed);
  std::string bad_begin = begin;
  bad_begin[40] = bad_begin[40] == 'a' ? 'b' : 'a';  // a value changed inside "begin"
  EXPECT_FALSE(parse_journal(bad_begin + commit).begin);
  EXPECT_FALSE(parse_journal("").begin);
  EXPECT_FALSE(parse_journal("garbage\n").begin);
}

TEST(Journal, RecordsOutOfOrderAreNotTrusted) {
  EXPECT_FALSE(parse_journal(marker_record("commit")).committed);
  EXPECT_FALSE(parse_journal(undo_begin_record("abc") + begin_record(sample())).begin);
  // An "undo-commit" (older versions wrote one before removing the journal) keeps the undo named.
  auto undo = parse_journal(undo_begin_record("abc") + marker_record("undo-commit"));
  EXPECT_EQ(undo.undo_of, "abc");
  EXPECT_EQ(undo.valid_bytes, undo_begin_record("abc").size() + marker_record("undo-commit").size());
}
