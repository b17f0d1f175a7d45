// The real binary on real trees: confirmation, locking, SIGKILL at random points, and the real
// cuDNN of this machine installed, loaded and rolled back.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "cudnn_install/integrity.hpp"
#include "cudnn_install/state_lock.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

fs::path test_archive() {
  fs::path real = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  return fs::exists(real) ? real : corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
}

pid_t spawn_install(const fs::path& root, const fs::path& archive) {
  std::string bin = cli(), r = root.string(), a = archive.string(),
              m = (archive.parent_path() / "redistrib_local.json").string();
  const char* argv[] = {bin.c_str(), "--yes",       "-q",      "--no-verify", "--manifest",
                        m.c_str(),   "--cuda-root", r.c_str(), a.c_str(),     nullptr};
  pid_t pid = 0;
  posix_spawn(&pid, bin.c_str(), nullptr, nullptr, const_cast<char**>(argv), environ);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

// cudnnGetVersion() of the library at `path`, called in a child so a crash cannot take the test down.
long cudnn_version_of(const fs::path& path) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    long v = -2;
    if (void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
      if (auto get = reinterpret_cast<size_t (*)()>(dlsym(lib, "cudnnGetVersion"))) v = static_cast<long>(get());
    if (write(fds[1], &v, sizeof v) < 0) _exit(2);
    _exit(0);
  }
  close(fds[1]);
  long v = -3;
  if (read(fds[0], &v, sizeof v) != sizeof v) v = -4;
  close(fds[0]);
  wait_for(pid);
  return v;
}

}  // namespace

TEST(CliInstall, WithoutATerminalItAsksForYes) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto before = snapshot(dir.path());
  std::string out;
  int rc = run_command(
      cli() + " --cuda-root " + dir.path().string() + " " + archive_args(test_archive()) + " </dev/null", &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("pass --yes"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
}

TEST(CliInstall, InstallStatusRollbackRoundTrip) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto before = snapshot(dir.path());
  std::string root = dir.path().string(), out;
  ASSERT_EQ(run_command(cli() + " --yes --no-verify --cuda-root " + root + " " + archive_args(test_archive()), &out), 0)
      << out;
  EXPECT_NE(out.find("installed cuDNN 9.19.0.56"), std::string::npos) << out;
  ASSERT_EQ(run_command(cli() + " --yes --no-verify --cuda-root " + root + " " + archive_args(test_archive()), &out), 0)
      << out;
  EXPECT_NE(out.find("already installed here: nothing to do"), std::string::npos) << out;
  ASSERT_EQ(run_command(cli() + " status --cuda-root " + root, &out), 0) << out;
  EXPECT_NE(out.find("cuDNN  9.19.0"), std::string::npos) << out;
  EXPECT_NE(out.find("<- --rollback undoes this"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(dir.path() / ".cudnn-install/cudnn-install.log"));
  ASSERT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root, &out), 0) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
  EXPECT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root, &out), 6) << out;
  EXPECT_NE(out.find("nothing to roll back"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
}

TEST(CliInstall, ASecondRunIsRefusedWhileTheLockIsHeld) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto before = snapshot(dir.path());
  auto lock = acquire_state_lock(dir.path());
  ASSERT_TRUE(lock);
  std::string out;
  int rc = run_command(
      cli() + " --yes --no-verify --cuda-root " + dir.path().string() + " " + archive_args(test_archive()), &out);
  EXPECT_EQ(rc, 3) << out;
  EXPECT_NE(out.find("another cudnn-install (PID " + std::to_string(getpid()) + ")"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
}

TEST(CliInstall, TwoInstallsAtOnceOneRunsTheOtherIsRefusedOrFindsNothingToDo) {
  TempDir dir, reference_dir;
  make_tree_with_old_cudnn(dir.path());
  make_tree_with_old_cudnn(reference_dir.path());
  std::string out;
  ASSERT_EQ(run_command(cli() + " --yes -q --no-verify --cuda-root " + reference_dir.path().string() + " " +
                            archive_args(test_archive()),
                        &out),
            0);
  pid_t a = spawn_install(dir.path(), test_archive());
  pid_t b = spawn_install(dir.path(), test_archive());
  int ra = wait_for(a), rb = wait_for(b);
  EXPECT_TRUE((ra == 0 && rb == 3) || (ra == 3 && rb == 0) || (ra == 0 && rb == 0)) << ra << " " << rb;
  EXPECT_EQ(diff(snapshot(reference_dir.path()), snapshot(dir.path())), "");
}

TEST(CliInstall, AStaleLockOfADeadProcessIsTakenOver) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  write_file(dir.path() / ".cudnn-install/lock", "999999\n");
  std::string out;
  ASSERT_EQ(run_command(
                cli() + " --yes -q --no-verify --cuda-root " + dir.path().string() + " " + archive_args(test_archive()),
                &out),
            0)
      << out;
  EXPECT_NE(read_file(dir.path() / ".cudnn-install/cudnn-install.log").find("took over the lock left by PID 999999"),
            std::string::npos);
}

TEST(CliInstall, SigkillAtRandomPointsThenRecoveryGivesBeforeOrAfter) {
  TempDir ref;
  make_tree_with_old_cudnn(ref.path());
  Snapshot before = snapshot(ref.path());
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(wait_for(spawn_install(ref.path(), test_archive())), 0);
  auto duration = std::chrono::steady_clock::now() - start;
  Snapshot after = snapshot(ref.path());
  std::mt19937 rng(12345);
  int before_count = 0, after_count = 0;
  // Most of a run is start-up, reading and staging; the commit comes in its last few percent. So
  // every other kill lands in a window around the commit, and the rounds go on (25 at least, 80 at
  // most) until kills landed on both sides of it: kills that all landed before the first write
  // would prove nothing about recovering a committed install. The window starts at the last 15 %
  // of the first run and follows the commit: a late kill that found the tree as before moves it
  // later, one that found it as after moves it earlier (on a loaded machine the runs take longer
  // than the first one did, and a fixed window once saw 80 kills before and none after).
  const long total = std::chrono::duration_cast<std::chrono::microseconds>(duration).count();
  long late_from = total * 85 / 100, late_to = total;
  for (int round = 0; round < 80 && (round < 25 || before_count == 0 || after_count == 0); ++round) {
    TempDir dir;
    make_tree_with_old_cudnn(dir.path());
    pid_t pid = spawn_install(dir.path(), test_archive());
    bool late = round % 2 != 0;
    std::uniform_int_distribution<long> delay(late ? late_from : 0, late ? late_to : total);
    long waited = delay(rng);
    std::this_thread::sleep_for(std::chrono::microseconds(waited));
    kill(pid, SIGKILL);
    wait_for(pid);
    std::string out;
    ASSERT_EQ(run_command(cli() + " status --cuda-root " + dir.path().string(), &out), 0) << out;  // recovers
    Snapshot now = snapshot(dir.path());
    bool is_before = diff(before, now).empty(), is_after = diff(after, now).empty();
    EXPECT_TRUE(is_before || is_after) << "round " << round << ":\n"
                                       << diff(before, now) << "---\n"
                                       << diff(after, now);
    before_count += is_before;
    after_count += is_after;
    if (late && is_before) {  // the commit came after `waited`: look later
      late_from = waited;
      late_to = std::max(late_to, waited + total / 10);
    } else if (late && is_after) {  // it came before: look earlier
      late_to = waited;
      late_from = std::min(late_from, std::max(0L, waited - total / 10));
    }
    EXPECT_TRUE(stray_temporaries(dir.path()).empty());
  }
  std::cout << "[ kills ] " << before_count << " rounds ended before, " << after_count << " after\n";
  EXPECT_GT(before_count, 0) << "no kill landed before the commit";
  EXPECT_GT(after_count, 0) << "no kill landed after the commit";
}

TEST(CliInstall, RealCudnnInstalledLoadsAndRollsBackByteExact) {
  fs::path archive = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  if (!fs::exists(archive)) GTEST_SKIP() << "no real cuDNN on this machine (scripts/make-test-archive.sh made none)";
  TempDir dir;
  fs::path root = dir.path() / "cuda-13.0";
  make_linux_toolkit(root, 13000);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  write_file(root / "lib/libcudnn.so.9", "an older libcudnn.so.9\n");
  auto before = snapshot(root);
  std::string out;
  ASSERT_EQ(run_command(cli() + " --yes --no-verify --cuda-root " + root.string() + " " + archive_args(archive), &out),
            0)
      << out;
  EXPECT_EQ(fs::read_symlink(root / "lib/libcudnn.so.9"), "libcudnn.so.9.19.0");
  EXPECT_EQ(cudnn_version_of(root / "lib/libcudnn.so.9"), 91900);
  ASSERT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root.string(), &out), 0) << out;
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

// The toolkit remembers the archive it got (identity, sha256, listing): the same file again is
// neither hashed nor decoded. A byte changed in place (same size) is a new change time: hashed
// again and refused by the manifest.
TEST(CliInstall, TheSameFileAgainIsNeitherHashedNorReadButAChangedOneIs) {
  TempDir dir;
  fs::path root = dir.path() / "cuda", archive = dir.path() / test_archive().filename();
  make_tree_with_old_cudnn(root);
  fs::copy_file(test_archive(), archive);
  auto sha = sha256_file(archive);
  ASSERT_TRUE(sha);
  write_file(dir.path() / "redistrib_local.json", "{\"cudnn\": {\"" + archive.filename().string() +
                                                      "\": {\"relative_path\": \"x/" + archive.filename().string() +
                                                      "\", \"sha256\": \"" + *sha + "\", \"size\": \"" +
                                                      std::to_string(fs::file_size(archive)) + "\"}}}");
  std::string install = cli() + " --yes --no-verify --cuda-root " + root.string() + " " + archive_args(archive), out;
  ASSERT_EQ(run_command(install, &out), 0) << out;
  EXPECT_EQ(out.find("hashed and listed when"), std::string::npos) << out;
  ASSERT_EQ(run_command(install, &out), 0) << out;
  EXPECT_NE(out.find("hashed and listed when this toolkit got it"), std::string::npos) << out;
  EXPECT_NE(out.find("nothing to do"), std::string::npos) << out;
  auto installed = snapshot(root);

  std::string original = read_file(archive);
  std::string changed = original;
  changed[changed.size() / 2] ^= 0x01;
  { std::ofstream(archive, std::ios::binary | std::ios::in) << changed; }
  EXPECT_EQ(run_command(install, &out), 2) << out;  // refused: the decoder or the sha256 finds the change
  EXPECT_TRUE(out.find("corrupt") != std::string::npos || out.find("sha256") != std::string::npos) << out;
  EXPECT_EQ(diff(installed, snapshot(root)), "");

  { std::ofstream(archive, std::ios::binary | std::ios::in) << original; }  // same bytes, new change time
  ASSERT_EQ(run_command(install, &out), 0) << out;
  EXPECT_EQ(out.find("hashed and listed when"), std::string::npos) << out;
  EXPECT_NE(out.find("nothing to do"), std::string::npos) << out;
}

// The files an install put in place are stamped (identity and CRC-32): the identical reinstall
// reads none of them. A byte changed in place, even with the modification time set back, moves
// the change time: that file alone is read, found different and replaced.
TEST(CliInstall, AnIdenticalReinstallReadsNoInstalledFileButFindsOneChangedInPlace) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  std::string install = cli() + " --yes --no-verify -v --cuda-root " + dir.path().string() + " " +
                        archive_args(test_archive()),
              out;
  ASSERT_EQ(run_command(install, &out), 0) << out;
  ASSERT_EQ(run_command(install, &out), 0) << out;
  EXPECT_NE(out.find("debug: 0 existing files read to compare them"), std::string::npos) << out;
  EXPECT_NE(out.find("nothing to do"), std::string::npos) << out;
  auto installed = snapshot(dir.path());

  fs::path header = dir.path() / "include/cudnn.h";
  auto mtime = fs::last_write_time(header);
  std::string text = read_file(header);
  text[text.size() / 2] ^= 0x01;
  { std::ofstream(header, std::ios::binary | std::ios::in) << text; }
  fs::last_write_time(header, mtime);
  ASSERT_EQ(run_command(install, &out), 0) << out;
  EXPECT_NE(out.find("debug: 1 existing files read to compare them"), std::string::npos) << out;
  EXPECT_NE(out.find("1 files written"), std::string::npos) << out;
  EXPECT_EQ(read_file(header), installed.at("include/cudnn.h").content);
}
