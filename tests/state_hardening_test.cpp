// Issue 18, class 3: the state directory is untrusted. The real binary on real trees with planted
// state (symlinks where the tool keeps its files, hand-edited journal and history records): nothing
// outside the toolkit changes, the tool says what it found, and exits 3 (README, "Exit codes").
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <functional>

#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"
#include "txn_journal.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// A toolkit with a cuDNN in it, and beside it a directory of files the tool must never touch.
class PlantedState : public ::testing::Test {
 protected:
  void SetUp() override {
    make_linux_toolkit(root(), 13000);
    write_file(root() / "include/cudnn.h", "old header\n");
    write_file(outside() / "victim", "precious\n");
    write_file(outside() / "sub/other", "also precious\n");
    fs::create_directory(state());
    fs::permissions(state(), fs::perms(0755));
    before_outside_ = snapshot(outside());
    before_root_ = snapshot(root());
  }
  fs::path root() const { return dir_.path() / "cuda"; }
  fs::path outside() const { return dir_.path() / "outside"; }
  fs::path state() const { return root() / ".cudnn-install"; }

  int run(const std::string& args, std::string* out) {
    return run_command(cli() + " --cuda-root " + root().string() + " " + args + " </dev/null 2>&1", out);
  }
  // Nothing outside the toolkit changed, and (the state refused) nothing in it either.
  void expect_untouched() {
    EXPECT_EQ(diff(before_outside_, snapshot(outside())), "");
    EXPECT_EQ(diff(before_root_, snapshot(root())), "");
  }
  // A begin record as the tool frames it (CRC and all), with what a hand edit put in it.
  static BeginRecord record(const std::string& id, JournalStep step) {
    BeginRecord b;
    b.id = id;
    b.operation = "install";
    b.archive = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
    b.cudnn_version = "9.19.0";
    b.time = "2026-01-01T00:00:00Z";
    b.steps.push_back(std::move(step));
    return b;
  }

  TempDir dir_;
  Snapshot before_outside_, before_root_;
};

constexpr const char* kId = "20260101T000000.000Z-1";

TEST_F(PlantedState, LockSymlinkToAFileOutsideIsNotOpened) {
  fs::create_symlink(outside() / "victim", state() / "lock");
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find("is a symbolic link"), std::string::npos) << out;
  EXPECT_EQ(read_file(outside() / "victim"), "precious\n");
  expect_untouched();
}

TEST_F(PlantedState, LockHardLinkToAFileOutsideIsNotWritten) {
  fs::create_hard_link(outside() / "victim", state() / "lock");
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find("other hard links"), std::string::npos) << out;
  EXPECT_EQ(read_file(outside() / "victim"), "precious\n");
}

TEST_F(PlantedState, SpoolSymlinkToADirectoryOutsideIsNotEmptied) {
  fs::create_directory_symlink(outside(), state() / "spool");
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find("spool' is a symbolic link"), std::string::npos) << out;
  expect_untouched();
}

TEST_F(PlantedState, StateDirectoryThatIsASymlinkIsNotUsed) {
  fs::remove(state());
  fs::create_directory_symlink(outside(), state());
  before_root_ = snapshot(root());
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find(".cudnn-install' is a symbolic link"), std::string::npos) << out;
  expect_untouched();
}

TEST_F(PlantedState, StateDirectoryWritableByOthersIsNotUsed) {
  fs::permissions(state(), fs::perms(0777));
  before_root_ = snapshot(root());
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find("writable by group or others (mode 0777)"), std::string::npos) << out;
  expect_untouched();
}

TEST_F(PlantedState, HistoryDirectorySymlinkIsNotListed) {
  fs::create_directory_symlink(outside(), state() / "history");
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find("history' is a symbolic link"), std::string::npos) << out;
  expect_untouched();
}

// The state directory's log is opened as itself: a link planted there is refused, with a warning,
// and the command goes on without that log.
TEST_F(PlantedState, StateLogSymlinkToAFileOutsideIsNotAppendedTo) {
  fs::create_symlink(outside() / "victim", state() / "cudnn-install.log");
  before_root_ = snapshot(root());
  std::string out;
  run("--rollback --yes", &out);
  EXPECT_NE(out.find("no log in the state directory"), std::string::npos) << out;
  EXPECT_NE(out.find("does not write through one"), std::string::npos) << out;
  expect_untouched();
}

// --log names a file of the user's choice, often under a directory others can write to (/tmp):
// whatever another user planted at that name is not written to, as root least of all.
TEST_F(PlantedState, LogPathPlantedByAnotherUserIsNotWritten) {
  struct Plant {
    std::string what;
    std::function<void(const fs::path&)> make;
    std::string said;
  };
  std::vector<Plant> plants = {
      {"symlink", [&](const fs::path& p) { fs::create_symlink(outside() / "victim", p); },
       "does not write through one"},
      {"hard link", [&](const fs::path& p) { fs::create_hard_link(outside() / "victim", p); },
       "other names (hard links)"},
      // O_NONBLOCK: without it, opening a FIFO nobody reads would wait forever.
      {"fifo", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }, "is not a plain file"},
  };
  for (const auto& plant : plants) {
    SCOPED_TRACE(plant.what);
    fs::path log = dir_.path() / "tmp" / ("planted-" + std::to_string(&plant - plants.data()) + ".log");
    fs::create_directories(log.parent_path());
    plant.make(log);
    std::string out;
    EXPECT_EQ(run("status --log " + log.string(), &out), 0) << out;
    EXPECT_NE(out.find("no log is written: "), std::string::npos) << out;
    EXPECT_NE(out.find(plant.said), std::string::npos) << out;
    expect_untouched();
  }
  // A plain file is appended to, not truncated.
  fs::path log = dir_.path() / "tmp" / "plain.log";
  write_file(log, "an earlier run\n");
  std::string out;
  run("--rollback --yes --log " + log.string(), &out);
  std::string text = read_file(log);
  EXPECT_EQ(text.rfind("an earlier run\n", 0), 0u) << text;
  EXPECT_GT(text.size(), std::string("an earlier run\n").size()) << text;
}

// Plain `status` recovers a pending journal: a target outside the toolkit must not be removed.
void plant_journal(const fs::path& state, const BeginRecord& begin) {
  std::ofstream(state / "journal.jsonl", std::ios::binary) << begin_record(begin);
}

TEST_F(PlantedState, JournalTargetWithDotDotIsNotActedOn) {
  plant_journal(state(), record(kId, {JournalStep::Kind::Place, "../outside/victim",
                                      "../outside/.cudnn-install-" + std::string(kId) + "-0.tmp", ""}));
  std::string out;
  EXPECT_EQ(run("status", &out), 3) << out;
  EXPECT_NE(out.find("cannot be trusted"), std::string::npos) << out;
  EXPECT_NE(out.find("../outside/victim"), std::string::npos) << out;
  expect_untouched();
  EXPECT_TRUE(fs::exists(state() / "journal.jsonl"));  // kept for the user to inspect
}

TEST_F(PlantedState, JournalAbsoluteTargetIsNotActedOn) {
  std::string victim = (outside() / "victim").string();
  plant_journal(state(), record(kId, {JournalStep::Kind::Place, victim, "", ""}));
  std::string out;
  EXPECT_EQ(run("status", &out), 3) << out;
  EXPECT_NE(out.find("cannot be trusted"), std::string::npos) << out;
  expect_untouched();
}

TEST_F(PlantedState, JournalTargetThatIsNotCudnnsIsNotActedOn) {
  plant_journal(state(), record(kId, {JournalStep::Kind::Place, "lib/libcudart.so.13",
                                      "lib/.cudnn-install-" + std::string(kId) + "-0.tmp", ""}));
  std::string out;
  EXPECT_EQ(run("status", &out), 3) << out;
  EXPECT_NE(out.find("is not a cuDNN file inside the toolkit"), std::string::npos) << out;
  expect_untouched();
}

TEST_F(PlantedState, JournalIdWithDotDotIsNotFiled) {
  // A committed journal is filed as history/<id>.jsonl: this id would put it outside.
  std::string journal = begin_record(record("../../outside/x", {JournalStep::Kind::Place, "include/cudnn.h",
                                                                "include/.cudnn-install-x-0.tmp", ""})) +
                        marker_record("commit");
  std::ofstream(state() / "journal.jsonl", std::ios::binary) << journal;
  std::string out;
  EXPECT_EQ(run("status", &out), 3) << out;
  EXPECT_NE(out.find("is not a transaction id"), std::string::npos) << out;
  expect_untouched();
}

TEST_F(PlantedState, HistoryBackupOutsideBackupDirIsNotCopiedIn) {
  fs::create_directories(state() / "history");
  std::ofstream(state() / "history" / (std::string(kId) + ".jsonl"), std::ios::binary)
      << begin_record(record(kId, {JournalStep::Kind::Place, "include/cudnn.h",
                                   "include/.cudnn-install-" + std::string(kId) + "-0.tmp", "../outside/victim"}))
      << marker_record("commit");
  before_root_ = snapshot(root());
  std::string out;
  EXPECT_EQ(run("--rollback --yes", &out), 3) << out;
  EXPECT_NE(out.find("backup '../outside/victim' is not .cudnn-install/backup/" + std::string(kId) + "/0"),
            std::string::npos)
      << out;
  expect_untouched();
  EXPECT_EQ(read_file(root() / "include/cudnn.h"), "old header\n");
}

}  // namespace
