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

const std::u16string kCuda = u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin";

// %SystemRoot% -> C:\Windows, %CUDA_PATH% -> the v12.4 root: for comparing only.
std::u16string expand(std::u16string_view entry) {
  std::u16string s(entry);
  for (auto [var, value] : {std::pair<std::u16string, std::u16string>{u"%SystemRoot%", u"C:\\Windows"},
                            {u"%CUDA_PATH%", u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4"}})
    if (auto at = s.find(var); at != std::u16string::npos) s.replace(at, var.size(), value);
  return s;
}

PathQuery query(std::vector<std::u16string> holding_cudnn = {}) {
  return {kCuda, expand, [holding_cudnn](std::u16string_view dir) {
            for (const auto& h : holding_cudnn)
              if (comparable_entry(h) == dir) return true;
            return false;
          }};
}

// A 3000+ character PATH as a long-used machine has it: unexpanded variables, a quoted entry with
// a ';' inside, an entry that is a prefix of the CUDA directory, and a trailing ';'.
std::u16string long_path() {
  std::u16string p = u"%SystemRoot%\\system32;%SystemRoot%;\"C:\\Tools;Quoted\\bin\";"
                     u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bi;";
  for (int i = 0; p.size() < 3100; ++i) p += u"C:\\Program Files\\Vendor" + std::u16string(1, char16_t(u'A' + i % 26)) + u"\\bin;";
  return p;
}

std::size_t count_entries(const std::u16string& value, const std::u16string& dir) {
  std::size_t n = 0;
  for (const auto& e : split_path_value(value)) n += comparable_entry(expand(e)) == comparable_entry(dir);
  return n;
}

}  // namespace

TEST(Env, SplitAndJoinGiveBackEveryByte) {
  for (std::u16string v : std::vector<std::u16string>{u"", u";", u"a;;b;", u"\"x;y\";z", u"\"unterminated;quote", long_path()})
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
  EXPECT_EQ(count_entries(r->value, kCuda), 1u);
  // Appended before the trailing empty entry: the old text, then the directory, then the ';'.
  EXPECT_EQ(r->value, before + kCuda + u";");
  EXPECT_EQ(remove_path_entry(r->value, query()), before);
}

TEST(Env, GoesBeforeTheFirstDirectoryWithAnotherCudnn) {
  std::u16string before = u"C:\\Windows;C:\\Old\\cudnn8\\bin;C:\\Other;C:\\Python\\Lib\\torch\\lib";
  auto r = insert_path_entry(before, query({u"C:\\Old\\cudnn8\\bin", u"C:\\Python\\Lib\\torch\\lib"}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, u"C:\\Windows;" + kCuda + u";C:\\Old\\cudnn8\\bin;C:\\Other;C:\\Python\\Lib\\torch\\lib");
  EXPECT_EQ(r->shadows.size(), 2u);
  EXPECT_EQ(r->position, 1u);
}

TEST(Env, AlreadyFirstChangesNothingButAShadowedEntryMovesAndDuplicatesGo) {
  std::u16string ok = u"%CUDA_PATH%\\bin;C:\\Old";
  auto same = insert_path_entry(ok, query({u"C:\\Old"}));
  ASSERT_TRUE(same);
  EXPECT_EQ(same->what, PathInsertion::What::AlreadyFirst);
  EXPECT_EQ(same->value, ok);

  auto moved = insert_path_entry(u"C:\\Old;" + kCuda + u"\\;C:\\X;%CUDA_PATH%\\bin", query({u"C:\\Old"}));
  ASSERT_TRUE(moved);
  EXPECT_EQ(moved->what, PathInsertion::What::Moved);
  EXPECT_EQ(moved->value, kCuda + u";C:\\Old;C:\\X");

  auto dup = insert_path_entry(kCuda + u";C:\\X;" + kCuda, query());
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->value, kCuda + u";C:\\X");
}

TEST(Env, EmptyPathBecomesTheDirectory) {
  auto r = insert_path_entry(u"", query());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->value, kCuda);
}

TEST(Env, AResultOverTheLimitIsRefused) {
  std::u16string huge(kMaxPathChars - 10, u'x');
  auto r = insert_path_entry(huge, query());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::EnvLimit);
  EXPECT_NE(r.error().message.find("32767"), std::string::npos);
}

// ---- the edit inside a transaction ----

namespace {

const char* kArchive = "cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz";  // the small one

struct EnvScenario {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  RegValue before = make_value(kRegExpandSz, long_path());
  FakeEnvStore store;
  Prepared p;
  Snapshot tree_before;

  EnvScenario() {
    make_tree_with_old_cudnn(root);
    tree_before = snapshot(root);
    store.values[{EnvScope::User, "Path"}] = before;
    p = prepare(root, corpus_archive(kArchive));
    auto ins = insert_path_entry(value_text(before), query());
    p.plan.env_edit = EnvEdit{EnvScope::User, "Path", before, make_value(kRegExpandSz, ins->value)};
    p.plan.env_entry = "C:\\CUDA\\bin";
  }
  const RegValue& now() { return store.values.at({EnvScope::User, "Path"}); }
};

}  // namespace

TEST(EnvTxn, InstallWritesPathOnceAndRollbackRestoresTheExactBytes) {
  EnvScenario s;
  auto real = make_real_filesystem();
  ApplyOptions options;
  options.env = &s.store;
  ASSERT_TRUE(apply_plan(*real, s.root, s.p.archive, s.p.plan, options));
  EXPECT_EQ(s.now(), s.p.plan.env_edit->after);
  EXPECT_EQ(s.now().type, kRegExpandSz);
  EXPECT_EQ(count_entries(value_text(s.now()), kCuda), 1u);
  EXPECT_EQ(s.store.broadcasts, 1);
  auto history = read_history(*real, s.root);
  ASSERT_TRUE(history);
  EXPECT_EQ(history->back().path_entry, "C:\\CUDA\\bin");
  ASSERT_TRUE(rollback_last(*real, s.root, &s.store));
  EXPECT_EQ(s.now(), s.before);
  EXPECT_EQ(diff(s.tree_before, snapshot(s.root)), "");
  EXPECT_EQ(s.store.broadcasts, 2);
}

TEST(EnvTxn, AValueThatDidNotExistIsRemovedAgainByRollback) {
  EnvScenario s;
  s.store.values.clear();
  s.p.plan.env_edit->before.reset();
  auto real = make_real_filesystem();
  ApplyOptions options;
  options.env = &s.store;
  ASSERT_TRUE(apply_plan(*real, s.root, s.p.archive, s.p.plan, options));
  ASSERT_TRUE(rollback_last(*real, s.root, &s.store));
  EXPECT_TRUE(s.store.values.empty());
}

TEST(EnvTxn, APathChangedByOthersSinceIsLeftAlone) {
  EnvScenario s;
  auto real = make_real_filesystem();
  ApplyOptions options;
  options.env = &s.store;
  ASSERT_TRUE(apply_plan(*real, s.root, s.p.archive, s.p.plan, options));
  RegValue theirs = make_value(kRegExpandSz, u"C:\\Someone\\Else");
  s.store.values[{EnvScope::User, "Path"}] = theirs;
  ASSERT_TRUE(rollback_last(*real, s.root, &s.store));
  EXPECT_EQ(s.now(), theirs);
}

TEST(EnvTxn, WithoutARegistryTheTransactionDoesNotStart) {
  EnvScenario s;
  auto real = make_real_filesystem();
  auto outcome = apply_plan(*real, s.root, s.p.archive, s.p.plan, {});
  ASSERT_FALSE(outcome);
  EXPECT_NE(outcome.error().message.find("cannot reach"), std::string::npos);
  EXPECT_EQ(diff(s.tree_before, snapshot(s.root)), "");
}

// Every filesystem operation and the registry write fail in turn, as an error and as a crash:
// the tree and PATH end both as before or both as after.
TEST(EnvTxn, FaultOrCrashAtEveryOperationKeepsTreeAndPathTogether) {
  int total = 0;
  {
    EnvScenario s;
    auto real = make_real_filesystem();
    FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
    s.store.faults = &counting;
    ApplyOptions options;
    options.env = &s.store;
    ASSERT_TRUE(apply_plan(counting, s.root, s.p.archive, s.p.plan, options));
    total = counting.operations();
  }
  for (auto mode : {FaultyFileSystem::Mode::FailOnce, FaultyFileSystem::Mode::Crash})
    for (int n = 1; n <= total; ++n) {
      EnvScenario s;
      auto real = make_real_filesystem();
      FaultyFileSystem faulty(*real, n, mode);
      s.store.faults = &faulty;
      ApplyOptions options;
      options.env = &s.store;
      auto outcome = apply_plan(faulty, s.root, s.p.archive, s.p.plan, options);
      s.store.faults = nullptr;
      ASSERT_TRUE(recover(*real, s.root, &s.store)) << n;
      bool installed = snapshot(s.root) != s.tree_before;
      EXPECT_EQ(s.now(), installed ? s.p.plan.env_edit->after : s.before) << "operation " << n;
      if (mode == FaultyFileSystem::Mode::FailOnce) {
        EXPECT_EQ(installed, bool(outcome)) << "operation " << n;
      }
    }
}
