// whole_utf8_prefix: what the Windows console stream may show now, and what waits for the rest
// of a sequence that a write cut in two.
#include <gtest/gtest.h>

#include "cudnn_install/utf8.hpp"

using cudnn_install::whole_utf8_prefix;

TEST(WholeUtf8Prefix, WholeTextIsShownAtOnce) {
  EXPECT_EQ(whole_utf8_prefix(""), 0u);
  EXPECT_EQ(whole_utf8_prefix("C:\\Tools"), 8u);
  EXPECT_EQ(whole_utf8_prefix("Jos\xC3\xA9"), 5u);               // é: two bytes
  EXPECT_EQ(whole_utf8_prefix("\xE4\xB8\x8B\xE8\xBD\xBD"), 6u);  // 下载: three bytes each
  EXPECT_EQ(whole_utf8_prefix("x\xF0\x9F\x99\x82"), 5u);         // an emoji: four bytes
}

TEST(WholeUtf8Prefix, ASequenceCutAtTheEndWaits) {
  EXPECT_EQ(whole_utf8_prefix("Jos\xC3"), 3u);
  EXPECT_EQ(whole_utf8_prefix("a\xE4"), 1u);
  EXPECT_EQ(whole_utf8_prefix("a\xE4\xB8"), 1u);
  EXPECT_EQ(whole_utf8_prefix("a\xF0\x9F\x99"), 1u);
  EXPECT_EQ(whole_utf8_prefix("\xF0"), 0u);
}

TEST(WholeUtf8Prefix, BytesThatAreNotUtf8DoNotWait) {
  // Stray continuation bytes and bytes that start nothing are shown (as U+FFFD) rather than held.
  EXPECT_EQ(whole_utf8_prefix("a\x80\x80\x80\x80"), 5u);
  EXPECT_EQ(whole_utf8_prefix("a\xFF"), 2u);
  EXPECT_EQ(whole_utf8_prefix("\xC3\xA9\xA9"), 3u);  // a continuation byte too many
}
