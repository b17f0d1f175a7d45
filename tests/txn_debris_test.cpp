// Issue 18, class 9: debris. A run killed (kill -9) while it wrote stamps.json or archives.json
// leaves "<file>.tmp-<PID>" in the state directory. Recovery removes exactly those of processes
// that are no longer running, and nothing else (a running process's temporary, names that only
// look like the tool's); `status` says what it removed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/state_file.hpp"
#include "cudnn_install/txn.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// The PID of a process that has ended (and been reaped).
long ended_process() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

// A toolkit whose state directory holds the debris of a killed run and look-alikes of it.
struct Planted {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  long dead = ended_process();
  std::string dead_stamps = "stamps.json.tmp-" + std::to_string(dead);
  std::string dead_memo = "archives.json.tmp-" + std::to_string(dead);
  std::string live = "stamps.json.tmp-1";  // PID 1 always runs
  std::vector<std::string> look_alikes = {"stamps.json.tmp-abc", "stamps.json.tmp-0" + std::to_string(dead),
                                          "notes.json.tmp-" + std::to_string(dead),
                                          "stamps.json.tmp-" + std::to_string(dead) + ".keep", "stamps.json"};
  Planted() {
    make_tree_with_old_cudnn(root);
    fs::create_directories(state_dir(root));
    for (const auto& name : all_but_debris()) write_file(state_dir(root) / name, "kept\n");
    write_file(state_dir(root) / dead_stamps, "{\"files\": [");
    write_file(state_dir(root) / dead_memo, "{\"arch");
  }
  std::vector<std::string> all_but_debris() const {
    auto names = look_alikes;
    names.push_back(live);
    return names;
  }
};

}  // namespace

TEST(StateDebris, TheToolsOwnTemporariesNameTheirProcess) {
  EXPECT_EQ(state_temp_pid("stamps.json.tmp-4242", "stamps.json"), 4242);
  EXPECT_EQ(state_temp_pid("archives.json.tmp-7", "archives.json"), 7);
  for (const char* other : {"stamps.json", "stamps.json.tmp-", "stamps.json.tmp-12a", "stamps.json.tmp-012",
                            "xstamps.json.tmp-12", "stamps.json.tmp-12.bak", "stamps.json.tmp-99999999999"})
    EXPECT_EQ(state_temp_pid(other, "stamps.json"), std::nullopt) << other;
}

TEST(StateDebris, RecoveryRemovesTemporariesOfDeadProcessesOnly) {
  Planted p;
  auto before = snapshot(p.root);
  ASSERT_TRUE(has_state_debris(p.root));
  auto real = make_real_filesystem();
  auto recovered = recover(*real, p.root);
  ASSERT_TRUE(recovered) << recovered.error().message;
  EXPECT_EQ(recovered->what, Recovery::What::Nothing);
  ASSERT_EQ(recovered->cleaned.size(), 2u);
  std::string cleaned = recovered->cleaned[0] + "\n" + recovered->cleaned[1];
  for (const auto& name : {p.dead_stamps, p.dead_memo}) {
    EXPECT_FALSE(fs::exists(state_dir(p.root) / name)) << name;
    EXPECT_NE(cleaned.find(".cudnn-install/" + name + " (left by process " + std::to_string(p.dead)), std::string::npos)
        << cleaned;
  }
  for (const auto& name : p.all_but_debris()) EXPECT_EQ(read_file(state_dir(p.root) / name), "kept\n") << name;
  EXPECT_EQ(diff(before, snapshot(p.root)), "");  // the toolkit itself is untouched
  EXPECT_FALSE(has_state_debris(p.root));
  auto again = recover(*real, p.root);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->cleaned.empty());
}

TEST(StateDebris, ALeftSpoolIsReportedAsCleaned) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  fs::create_directories(spool_dir(root));
  write_file(spool_dir(root) / "1", "a copy\n");
  ASSERT_TRUE(has_state_debris(root));
  auto real = make_real_filesystem();
  auto recovered = recover(*real, root);
  ASSERT_TRUE(recovered) << recovered.error().message;
  ASSERT_EQ(recovered->cleaned.size(), 1u);
  EXPECT_EQ(recovered->cleaned[0].rfind(".cudnn-install/spool/", 0), 0u) << recovered->cleaned[0];
  EXPECT_FALSE(fs::exists(spool_dir(root)));
}

TEST(StateDebris, ASymlinkNamedLikeATemporaryIsRefusedAndItsTargetKept) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  fs::create_directories(state_dir(root));
  write_file(dir.path() / "precious", "not the tool's\n");
  fs::create_symlink(dir.path() / "precious", state_dir(root) / ("stamps.json.tmp-" + std::to_string(ended_process())));
  auto real = make_real_filesystem();
  auto recovered = recover(*real, root);
  ASSERT_FALSE(recovered);
  EXPECT_EQ(recovered.error().code, ErrorCode::Conflict);
  EXPECT_EQ(read_file(dir.path() / "precious"), "not the tool's\n");
}

TEST(StateDebris, StatusRemovesTheDebrisAndSaysWhat) {
  Planted p;
  std::string out;
  ASSERT_EQ(run_command(cli() + " status --cuda-root " + p.root.string(), &out), 0) << out;
  EXPECT_NE(out.find("cleaned  .cudnn-install/" + p.dead_stamps + " (left by process"), std::string::npos) << out;
  EXPECT_NE(out.find("cleaned  .cudnn-install/" + p.dead_memo), std::string::npos) << out;
  // (followed by the space that ends a name: the dead PID may start with the live one's digits)
  EXPECT_EQ(out.find("/" + p.live + " "), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(state_dir(p.root) / p.dead_stamps));
  EXPECT_TRUE(fs::exists(state_dir(p.root) / p.live));
  ASSERT_EQ(run_command(cli() + " status --json --cuda-root " + p.root.string(), &out), 0) << out;
  EXPECT_NE(out.find("\"cleaned\": []"), std::string::npos) << out;  // nothing left to clean
}
