// The PATH edit: splitting and joining without losing a byte, where the toolkit's directory goes,
// and the edit as part of a transaction (applied, rolled back, failed, crashed) on a fake registry.
#include <gtest/gtest.h>

#include "cudnn_install/env.hpp"
#include "support/fake_env_store.hpp"
#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// %SystemRoot% -> C:\Windows, %CUDA_PATH% -> the v12.4 root: for comparing only.
std::u16string expand(std::u16string_view entry) {
  std::u16string s(entry);
  for (auto [var, value] : {std::pair<std::u16string, std::u16string>{u"%SystemRoot%", u"C:\\Windows"},
                            {u"%CUDA_PATH%", u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"}})
    if (auto at = s.find(var); at != std::u16string::npos) s.replace(at, var.size(), value);
  return s;
}

PathQuery query(std::vector<std::u16string> holding_cudnn = {}) {
  return {kCudaBin, expand, [holding_cudnn](std::u16string_view dir) {
            for (const auto& h : holding_cudnn)
              if (comparable_entry(h) == dir) return true;
            return false;
          }};
}

// A 3000+ character PATH as a long-used machine has it: unexpanded variables, a quoted entry with
// a ';' inside, an entry that is a prefix of the CUDA directory, and a trailing ';'.
std::u16string long_path() {
  std::u16string p =
      u"%SystemRoot%\\system32;%SystemRoot%;\"C:\\Tools;Quoted\\bin\";"
      u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bi;";
  for (int i = 0; p.size() < 3100; ++i)
    p += u"C:\\Program Files\\Vendor" + std::u16string(1, char16_t(u'A' + i % 26)) + u"\\bin;";
  return p;
}

std::size_t count_entries(const std::u16string& value, const std::u16string& dir) {
  std::size_t n = 0;
  for (const auto& e : split_path_value(value)) n += comparable_entry(expand(e)) == comparable_entry(dir);
  return n;
}

}  // namespace

TEST(Env, SplitAndJoinGiveBackEveryByte) {
  for (std::u16string v :
       std::vector<std::u16string>{u"", u";", u"a;;b;", u"\"x;y\";z", u"\"unterminated;quote", long_path()})
    EXPECT_EQ(join_path_value(split_path_value(v)), v);
  EXPECT_EQ(split_path_value(u"\"C:\\a;b\";C:\\c").size(), 2u);
}

TEST(Env, RegistryBytesRoundTrip) {
  RegValue v = make_value(kRegExpandSz, u"%SystemRoot%\\system32;C:\\\u00e9t\u00e9");
  EXPECT_EQ(v.bytes.size() % 2, 0u);
  EXPECT_EQ(v.bytes.substr(v.bytes.size() - 2), std::string(2, '\0'));
  EXPECT_EQ(value_text(v), u"%SystemRoot%\\system32;C:\\\u00e9t\u00e9");
}

TEST(Env, EntriesCompareWholeWithoutCaseQuotesOrTrailingSlash) {
  EXPECT_EQ(comparable_entry(u"\"C:\\CUDA\\Bin\\\\\""), comparable_entry(u"c:\\cuda\\bin"));
  EXPECT_NE(comparable_entry(u"C:\\CUDA\\bi"), comparable_entry(u"C:\\CUDA\\bin"));
}

TEST(Env, LongPathGetsExactlyOneEntryAndKeepsEveryOtherByte) {
  std::u16string before = long_path();
  ASSERT_GT(before.size(), 3000u);
  auto r = insert_path_entry(before, query());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->what, PathInsertion::What::Added);
  EXPECT_EQ(count_entries(r->value, kCudaBin), 1u);
  // Appended before the trailing empty entry: the old text, then the directory, then the ';'.
  EXPECT_EQ(r->value, before + kCudaBin + u";");
  EXPECT_EQ(remove_path_entry(r->value, query()), before);
}

TEST(Env, GoesBeforeTheFirstDirectoryWithAnotherCudnn) {
  std::u16string before = u"C:\\Windows;C:\\Old\\cudnn8\\bin;C:\\Other;C:\\Python\\Lib\\torch\\lib";
  auto r = insert_path_entry(before, query({u"C:\\Old\\cudnn8\\bin", u"C:\\Python\\Lib\\torch\\lib"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, u"C:\\Windows;" + kCudaBin + u";C:\\Old\\cudnn8\\bin;C:\\Other;C:\\Python\\Lib\\torch\\lib");
  EXPECT_EQ(r->shadows.size(), 2u);
  EXPECT_EQ(r->position, 1u);
}

TEST(Env, AlreadyFirstChangesNothingButAShadowedEntryMovesAndDuplicatesGo) {
  std::u16string ok = u"%CUDA_PATH%\\bin;C:\\Old";
  auto same = insert_path_entry(ok, query({u"C:\\Old"}));
  ASSERT_TRUE(same);
  EXPECT_EQ(same->what, PathInsertion::What::AlreadyFirst);
  EXPECT_EQ(same->value, ok);

  auto moved = insert_path_entry(u"C:\\Old;" + kCudaBin + u"\\;C:\\X;%CUDA_PATH%\\bin", query({u"C:\\Old"}));
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->what, PathInsertion::What::Moved);
  EXPECT_EQ(moved->value, kCudaBin + u";C:\\Old;C:\\X");

  auto dup = insert_path_entry(kCudaBin + u";C:\\X;" + kCudaBin, query());
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->value, kCudaBin + u";C:\\X");
}

TEST(Env, EmptyPathBecomesTheDirectory) {
  auto r = insert_path_entry(u"", query());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, kCudaBin);
}

TEST(Env, AResultOverTheLimitIsRefused) {
  std::u16string huge(kMaxPathChars - 10, u'x');
  auto r = insert_path_entry(huge, query());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::EnvLimit);
  EXPECT_NE(r.error().message.find("32767"), std::string::npos);
}
