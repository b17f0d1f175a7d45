// The PATH edit inside a transaction on a fake registry: applied, rolled back, left alone when
// someone changed it since, and kept together with the tree under a fault or crash at every step.
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

PathQuery cuda_query() { return {kCudaBin, nullptr, nullptr}; }

std::u16string long_machine_path() {
  std::u16string p = u"%SystemRoot%\\system32;%SystemRoot%;\"C:\\Tools;Quoted\\bin\";";
  for (int i = 0; p.size() < 3100; ++i)
    p += u"C:\\Program Files\\Vendor" + std::u16string(1, char16_t(u'A' + i % 26)) + u"\\bin;";
  return p;
}

std::size_t count_equal_entries(const std::u16string& value, const std::u16string& dir) {
  std::size_t n = 0;
  for (const auto& e : split_path_value(value)) n += comparable_entry(e) == comparable_entry(dir);
  return n;
}

}  // namespace

// ---- the edit inside a transaction ----

namespace {

const char* kArchive = "cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz";  // the small one

struct EnvScenario {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  RegValue before = make_value(kRegExpandSz, long_machine_path());
  FakeEnvStore store;
  Prepared p;
  Snapshot tree_before;

  EnvScenario() {
    make_tree_with_old_cudnn(root);
    tree_before = snapshot(root);
    store.values[{EnvScope::User, "Path"}] = before;
    p = prepare(root, corpus_archive(kArchive));
    auto ins = insert_path_entry(value_text(before), cuda_query());
    p.plan.env_edit = EnvEdit{EnvScope::User, "Path", before, make_value(kRegExpandSz, ins->value)};
    p.plan.env_entry = "C:\\CUDA\\bin";
  }
  const RegValue& now() { return store.values.at({EnvScope::User, "Path"}); }
  // The install with the fake registry, on the real filesystem.
  Result<TxnOutcome> install(FileSystem& fs) {
    ApplyOptions options;
    options.env = &store;
    return apply_plan(fs, root, p.archive, p.plan, options);
  }
};

}  // namespace

TEST(EnvTxn, InstallWritesPathOnceAndRollbackRestoresTheExactBytes) {
  EnvScenario s;
  auto real = make_real_filesystem();
  ASSERT_TRUE(s.install(*real));
  EXPECT_EQ(s.now(), s.p.plan.env_edit->after);
  EXPECT_EQ(s.now().type, kRegExpandSz);
  EXPECT_EQ(count_equal_entries(value_text(s.now()), kCudaBin), 1u);
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
  ASSERT_TRUE(s.install(*real));
  ASSERT_TRUE(rollback_last(*real, s.root, &s.store));
  EXPECT_TRUE(s.store.values.empty());
}

TEST(EnvTxn, APathChangedByOthersSinceIsLeftAlone) {
  EnvScenario s;
  auto real = make_real_filesystem();
  ASSERT_TRUE(s.install(*real));
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
