#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>

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

// The commit record says what the transaction left at each target (undo compares before it deletes).
TEST(Journal, TheCommitRecordKeepsWhatWasPlaced) {
  PlacedFiles placed{{"lib/libcudnn.so.9", {EntryType::Symlink, 0, 0, "libcudnn.so.9.19.0"}},
                     {"lib/libcudnn.so.9.19.0", {EntryType::File, 123456, 0xdeadbeef, ""}}};
  auto st = parse_journal(begin_record(sample()) + marker_record("staged") + commit_record(placed));
  EXPECT_TRUE(st.committed);
  EXPECT_EQ(st.damage, "");
  EXPECT_EQ(st.placed, placed);
  // Earlier builds wrote a bare commit: committed, with nothing to compare with.
  auto bare = parse_journal(begin_record(sample()) + marker_record("commit"));
  EXPECT_TRUE(bare.committed);
  EXPECT_TRUE(bare.placed.empty());
}

TEST(Journal, ACommitRecordWithAMalformedListIsDamageNotACommit) {
  // Intact framing (so no crash tore it) around a list the tool never writes: edited by hand.
  for (const char* body : {R"({"type":"commit","placed":[{"target":"lib/x"}]})",
                           R"({"type":"commit","placed":[{"target":"lib/x","size":"big","crc32":1}]})",
                           R"({"type":"commit","placed":7})"}) {
    SCOPED_TRACE(body);
    std::string text = body;
    auto crc = crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
    char prefix[10];
    std::snprintf(prefix, sizeof prefix, "%08lx ", static_cast<unsigned long>(crc));
    auto st = parse_journal(begin_record(sample()) + marker_record("staged") + prefix + text + "\n");
    EXPECT_FALSE(st.committed);
    EXPECT_NE(st.damage.find("\"commit\" record"), std::string::npos) << st.damage;
  }
}
