// Issue 18, class 9: a signal during an install. The interrupt is raised before every filesystem
// operation of a real install in turn (tar.xz read again, tar.xz spooled, zip on two threads);
// whatever it interrupts, the install stops at its next checkpoint, rolls back, and leaves the
// tree byte for byte as before, with no temporary, spool, journal or backup left; raised at or
// after the commit record, the install stands. And the real handlers only record the signal.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <utility>

#ifndef _WIN32
#include <signal.h>
#include <unistd.h>
#endif

#include "support/fake_interrupts.hpp"
#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"
#include "txn_paths.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

struct InterruptScenario {
  const char* label;
  const char* archive;
  Reading reading;
  void (*make_tree)(const fs::path& root);
};
const InterruptScenario kInterruptScenarios[] = {
    {"tar.xz read again at staging", "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", Reading::Archive,
     make_tree_with_old_cudnn},
    {"tar.xz spooled", "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", Reading::Spool, make_tree_with_old_cudnn},
    {"zip inflated on two threads", "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip", Reading::Archive,
     make_windows_tree_with_old_cudnn},
};

struct Counted {
  Snapshot before, after;
  int total_ops = 0;
  int commit_op = 0;  // the operation that appends the commit record
};

Counted count_install(const InterruptScenario& scenario) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  scenario.make_tree(root);
  Counted counted;
  counted.before = snapshot(root);
  auto real = make_real_filesystem();
  FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
  int appends = 0;
  counting.before_op = [&](const char* op, const fs::path&) {
    if (std::string(op) == "append_durable" && ++appends == 3) counted.commit_op = counting.operations();
  };
  FakeInterrupts never;
  auto outcome = install_through(counting, root, corpus_archive(scenario.archive), scenario.reading, &never);
  if (!outcome) throw std::runtime_error(outcome.error().message);
  counted.total_ops = counting.operations();
  counted.after = snapshot(root);
  return counted;
}

// What the state directory holds besides empty directories: no journal, spool, backup or history.
std::vector<std::string> state_files(const fs::path& root) {
  std::vector<std::string> found;
  if (!fs::exists(state_dir(root))) return found;
  for (auto it = fs::recursive_directory_iterator(state_dir(root)); it != fs::recursive_directory_iterator(); ++it)
    if (!it->is_directory()) found.push_back(fs::relative(it->path(), root).generic_string());
  return found;
}

const Interruption kKinds[] = {Interruption::Interrupt, Interruption::Terminate, Interruption::Hangup};

ErrorCode code_of(Interruption what) {
  return what == Interruption::Terminate ? ErrorCode::Terminated
         : what == Interruption::Hangup  ? ErrorCode::HungUp
                                         : ErrorCode::Interrupted;
}

}  // namespace

TEST(TxnInterrupt, ASignalBeforeEveryOperationRollsBackToTheTreeBefore) {
  for (const InterruptScenario& scenario : kInterruptScenarios) {
    Counted ref = count_install(scenario);
    ASSERT_GT(ref.commit_op, 10);
    std::set<Checkpoint> stopped_at;
    for (int n = 1; n <= ref.total_ops; ++n) {
      SCOPED_TRACE(std::string(scenario.label) + ", interrupt raised at operation " + std::to_string(n));
      Interruption kind = kKinds[n % 3];
      TempDir dir;
      fs::path root = dir.path() / "cuda";
      scenario.make_tree(root);
      auto real = make_real_filesystem();
      FaultyFileSystem counting(*real, 0, FaultyFileSystem::Mode::FailOnce);
      FakeInterrupts interrupts;
      counting.before_op = [&](const char*, const fs::path&) {
        if (counting.operations() == n) interrupts.raise(kind);
      };
      auto outcome = install_through(counting, root, corpus_archive(scenario.archive), scenario.reading, &interrupts);
      if (n < ref.commit_op) {
        ASSERT_FALSE(outcome);
        EXPECT_EQ(outcome.error().code, code_of(kind)) << outcome.error().message;
        EXPECT_NE(outcome.error().message.find("stopped by " + describe(kind)), std::string::npos)
            << outcome.error().message;
        bool said = outcome.error().message.find("rolled back") != std::string::npos ||
                    outcome.error().message.find("nothing was changed") != std::string::npos;
        EXPECT_TRUE(said || interrupts.seen_at() == Checkpoint::Spool) << outcome.error().message;
        EXPECT_EQ(diff(ref.before, snapshot(root)), "");
        EXPECT_EQ(state_files(root), std::vector<std::string>());
        if (auto at = interrupts.seen_at()) stopped_at.insert(*at);
      } else {
        ASSERT_TRUE(outcome) << outcome.error().message;  // committed: the install stands
        EXPECT_EQ(diff(ref.after, snapshot(root)), "");
      }
      EXPECT_TRUE(stray_temporaries(root).empty());
      EXPECT_FALSE(has_pending_journal(root));
      EXPECT_FALSE(fs::exists(spool_dir(root)));
      auto recovered = recover(*real, root);  // and the next run finds nothing to do
      ASSERT_TRUE(recovered) << recovered.error().message;
      EXPECT_EQ(recovered->what, Recovery::What::Nothing);
    }
    // Each checkpoint of the transaction stopped one of these installs (and the spool's, when spooled).
    std::set<Checkpoint> expected = {Checkpoint::Stage, Checkpoint::Swap, Checkpoint::Commit};
    if (scenario.reading == Reading::Spool) expected.insert(Checkpoint::Spool);
    for (Checkpoint at : expected) EXPECT_TRUE(stopped_at.contains(at)) << scenario.label << ": " << describe(at);
    stopped_at.erase(Checkpoint::Start);  // reached only when the last operation before it was the spool's
    EXPECT_EQ(stopped_at, expected) << scenario.label;
  }
}

TEST(TxnInterrupt, ARaisedFlagStopsBeforeTheBeginRecord) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  Snapshot before = snapshot(root);
  auto real = make_real_filesystem();
  FakeInterrupts interrupts;
  interrupts.raise(Interruption::Terminate);
  auto p = prepare(root, corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  ApplyOptions options;
  options.interrupts = &interrupts;
  auto outcome = apply_plan(*real, root, p.archive, p.plan, options);
  ASSERT_FALSE(outcome);
  EXPECT_EQ(outcome.error().code, ErrorCode::Terminated);
  EXPECT_NE(outcome.error().message.find("nothing was changed"), std::string::npos) << outcome.error().message;
  EXPECT_EQ(diff(before, snapshot(root)), "");
  EXPECT_FALSE(has_pending_journal(root));
  EXPECT_EQ(exit_code_for(ErrorCode::Terminated), ExitCode::Terminated);
  EXPECT_EQ(static_cast<int>(ExitCode::Interrupted), 130);
  EXPECT_EQ(static_cast<int>(ExitCode::Terminated), 143);
  EXPECT_EQ(static_cast<int>(ExitCode::HungUp), 129);
}

namespace {

// A signal that comes at the first look at one checkpoint: while an undo runs, say.
class RaiseAtFirstLook final : public Interrupts {
 public:
  RaiseAtFirstLook(Checkpoint at, Interruption what) : at_(at), what_(what) {}
  Interruption raised(Checkpoint at) override {
    if (at == at_) raised_ = what_;
    return raised_;
  }

 private:
  Checkpoint at_;
  Interruption what_, raised_ = Interruption::None;
};

}  // namespace

// uninstall undoes transactions in turn: a signal before the first changes nothing; one that comes
// while a transaction is undone lets that undo finish (never half) and stops before the next; the
// next run finishes the job.
TEST(TxnInterrupt, UninstallFinishesTheUndoUnderWayAndStopsBeforeTheNext) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  Snapshot before = snapshot(root);
  auto real = make_real_filesystem();
  auto tar = corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
  ASSERT_TRUE(install_through(*real, root, tar, Reading::Archive));
  fs::remove(root / "include/cudnn.h");  // so that a second install has work
  Snapshot between = snapshot(root);
  ASSERT_TRUE(install_through(*real, root, tar, Reading::Archive));
  Snapshot installed = snapshot(root);

  FakeInterrupts already;
  already.raise(Interruption::Hangup);
  auto none = uninstall_all(*real, root, nullptr, &already);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE(none->undone.empty());
  EXPECT_EQ(none->stopped_by, Interruption::Hangup);
  EXPECT_EQ(none->remaining, 2u);
  EXPECT_EQ(diff(installed, snapshot(root)), "");

  RaiseAtFirstLook during_undo(Checkpoint::Undo, Interruption::Terminate);
  auto first = uninstall_all(*real, root, nullptr, &during_undo);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_EQ(first->undone.size(), 1u);
  EXPECT_EQ(first->stopped_by, Interruption::Terminate);
  EXPECT_EQ(first->remaining, 1u);
  EXPECT_EQ(diff(between, snapshot(root)), "") << "the newest transaction undone whole";
  EXPECT_FALSE(has_pending_journal(root));

  auto rest = uninstall_all(*real, root);
  ASSERT_TRUE(rest) << rest.error().message;
  ASSERT_EQ(rest->undone.size(), 1u);
  EXPECT_EQ(rest->stopped_by, Interruption::None);
  EXPECT_EQ(rest->remaining, 0u);
  EXPECT_NE(rest->undone.front().id, first->undone.front().id);
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

// --rollback: a signal while it runs is seen, never obeyed; the transaction is undone whole.
TEST(TxnInterrupt, RollbackFinishesDespiteASignal) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  Snapshot before = snapshot(root);
  auto real = make_real_filesystem();
  ASSERT_TRUE(install_through(*real, root, corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"),
                              Reading::Archive));
  RaiseAtFirstLook during_undo(Checkpoint::Undo, Interruption::Interrupt);
  auto undone = rollback_last(*real, root, nullptr, &during_undo);
  ASSERT_TRUE(undone) << undone.error().message;
  EXPECT_EQ(during_undo.raised(Checkpoint::NextUndo), Interruption::Interrupt) << "it was looked at";
  EXPECT_EQ(diff(before, snapshot(root)), "");
  EXPECT_FALSE(has_pending_journal(root));
}

#ifndef _WIN32
namespace {
int handled_by_previous = 0;
extern "C" void previous_handler(int) { ++handled_by_previous; }
}  // namespace

// The real handlers record the first signal and nothing else, and put the previous ones back.
TEST(Interrupts, PosixHandlersRecordTheFirstSignalAndRestoreThePreviousHandlers) {
  struct sigaction previous {};
  previous.sa_handler = previous_handler;
  sigemptyset(&previous.sa_mask);
  struct sigaction saved[3];
  const int signals[] = {SIGINT, SIGTERM, SIGHUP};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(sigaction(signals[i], &previous, &saved[i]), 0);
  {
    auto interrupts = catch_interrupts();
    EXPECT_EQ(interrupts->raised(Checkpoint::Stage), Interruption::None);
    ASSERT_EQ(raise(SIGTERM), 0);  // would end the test program without the handler
    EXPECT_EQ(interrupts->raised(Checkpoint::Stage), Interruption::Terminate);
    ASSERT_EQ(raise(SIGINT), 0);
    EXPECT_EQ(interrupts->raised(Checkpoint::Swap), Interruption::Terminate);  // the first one counts
  }
  {
    auto interrupts = catch_interrupts();  // a new run of handlers starts with nothing received
    EXPECT_EQ(interrupts->raised(Checkpoint::Stage), Interruption::None);
    ASSERT_EQ(raise(SIGHUP), 0);
    EXPECT_EQ(interrupts->raised(Checkpoint::Stage), Interruption::Hangup);
  }
  EXPECT_EQ(handled_by_previous, 0);
  ASSERT_EQ(raise(SIGINT), 0);  // the previous handler is back
  EXPECT_EQ(handled_by_previous, 1);
  for (int i = 0; i < 3; ++i) sigaction(signals[i], &saved[i], nullptr);
}

// Standard input replaced by a pipe while the object lives (the prompt's stdin).
class PipeAsStdin {
 public:
  PipeAsStdin() {
    saved_ = dup(STDIN_FILENO);
    EXPECT_EQ(pipe(ends_), 0);
    dup2(ends_[0], STDIN_FILENO);
  }
  ~PipeAsStdin() {
    dup2(saved_, STDIN_FILENO);
    close(saved_);
    close(ends_[0]);
    if (ends_[1] >= 0) close(ends_[1]);
  }
  PipeAsStdin(const PipeAsStdin&) = delete;
  PipeAsStdin& operator=(const PipeAsStdin&) = delete;
  void write_line() { EXPECT_EQ(write(ends_[1], "y\n", 2), 2); }
  void close_writer() { close(std::exchange(ends_[1], -1)); }

 private:
  int saved_ = -1;
  int ends_[2] = {-1, -1};
};

// The prompt's race: a signal that came after the question was printed but before the read began
// (its handler ran already; no read is there to end) still stops the wait. A blocking read of the
// empty pipe would wait for ever; the CI saw exactly that hang once under load.
TEST(Interrupts, ASignalBeforeThePromptWaitsEndsTheWait) {
  PipeAsStdin input;  // nothing written, the writer open: a read would block
  auto interrupts = catch_interrupts();
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_EQ(wait_for_input(interrupts.get(), Checkpoint::Prompt), Interruption::Interrupt);
}

TEST(Interrupts, InputOrItsEndEndsTheWaitWithoutASignal) {
  auto interrupts = catch_interrupts();
  {
    PipeAsStdin input;
    input.write_line();
    EXPECT_EQ(wait_for_input(interrupts.get(), Checkpoint::Prompt), Interruption::None);
  }
  {
    PipeAsStdin input;
    input.close_writer();  // end of input: the read that follows returns at once
    EXPECT_EQ(wait_for_input(interrupts.get(), Checkpoint::Prompt), Interruption::None);
  }
  FakeInterrupts raised_later;  // a signal while waiting (no input ever) ends the wait too
  std::thread signaller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    raised_later.raise(Interruption::Hangup);
  });
  PipeAsStdin input;
  EXPECT_EQ(wait_for_input(&raised_later, Checkpoint::Prompt), Interruption::Hangup);
  signaller.join();
}
#endif
