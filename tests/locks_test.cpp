// Real processes that map or hold files of a sandbox tree are found by PID.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cudnn_install/locks.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// A child process that prints "ready" once it holds the file; killed on scope exit.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawnp(&pid_, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid_ = 0;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    char buf[16] = {};
    ready_ = pid_ > 0 && read(out[0], buf, 5) == 5 && std::string(buf, 5) == "ready";
    pipe_ = out[0];  // kept open: a child writing its newline late must not die of SIGPIPE
  }
  ~Child() {
    close(pipe_);
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  bool ready() const { return ready_; }

 private:
  pid_t pid_ = 0;
  int pipe_ = -1;
  bool ready_ = false;
};

const char* kDlopen = "import ctypes,sys,time; ctypes.CDLL(sys.argv[1]); print('ready',flush=True); time.sleep(60)";
const char* kOpenFd = "exec 3<\"$0\"; echo ready; exec sleep 60";

fs::path shared_library_in(const fs::path& dir) {
  fs::path lib = dir / "lib/libcudnn.so.9.1.0";
  fs::create_directories(lib.parent_path());
  fs::copy_file("/lib/x86_64-linux-gnu/libz.so.1", lib, fs::copy_options::overwrite_existing);
  return lib;
}

// The shell prints "ready" just before `exec sleep`: wait (at most 2 s) until the exec happened,
// so that the scan sees the program the test expects rather than the shell.
void wait_until_running(pid_t pid, const std::string& program) {
  for (int i = 0; i < 200; ++i) {
    std::error_code ec;
    if (fs::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec).filename().string() == program) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

const Holder* holder_of(const HolderScan& scan, pid_t pid) {
  for (const auto& h : scan.holders)
    if (h.pid == pid) return &h;
  return nullptr;
}

}  // namespace

TEST(Locks, ParsesMapsLines) {
  auto m = parse_maps_line("7f00-7f10 r-xp 00000000 08:01 1234567   /usr/lib/libcudnn.so.9.19.0");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->id.inode, 1234567u);
  EXPECT_EQ(m->id.device, (8u << 8) | 1u);
  EXPECT_EQ(m->path, "/usr/lib/libcudnn.so.9.19.0");
  EXPECT_FALSE(m->deleted);
  auto d = parse_maps_line("7f00-7f10 r--p 00000000 fd:02 99 /opt/cuda/lib/libcudnn.so.9 (deleted)");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->deleted);
  EXPECT_EQ(d->path, "/opt/cuda/lib/libcudnn.so.9");
  EXPECT_EQ(d->id.device, (0xfdu << 8) | 2u);
  EXPECT_FALSE(parse_maps_line("7f00-7f10 rw-p 00000000 00:00 0"));  // anonymous
  EXPECT_FALSE(parse_maps_line("garbage"));
}

// Issue 19: "run as root to see all" is advice for a user who is not root; as root it is false.
TEST(Locks, UninspectedProcessesGetAdviceThatFitsWhoRan) {
  HolderScan scan;
  scan.unknown = {41, 42};
  EXPECT_NE(describe_holders(scan).find("2 process(es) could not be inspected (unknown, not free): run as root to see "
                                        "all"),
            std::string::npos)
      << describe_holders(scan);
  scan.as_root = true;
  std::string as_root = describe_holders(scan);
  EXPECT_EQ(as_root.find("run as root"), std::string::npos) << as_root;
  EXPECT_NE(as_root.find("2 process(es) could not be inspected even as root (unknown, not free)"), std::string::npos)
      << as_root;
  EXPECT_NE(as_root.find("CAP_SYS_PTRACE"), std::string::npos) << as_root;
}

// The real scan knows who ran it.
TEST(Locks, TheScanSaysWhetherItRanAsRoot) {
  TempDir dir;
  fs::path file = dir.path() / "libcudnn.so.9";
  write_file(file, "x");
  auto scan = make_process_finder()->find_holders({{file.string(), *file_id(file)}});
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->as_root, geteuid() == 0);
}

TEST(Locks, FindsAProcessThatMapsALibraryAndOneThatHoldsAnFd) {
  TempDir dir;
  fs::path lib = shared_library_in(dir.path());
  fs::path header = dir.path() / "include/cudnn.h";
  write_file(header, "header");
  Child mapper({"python3", "-c", kDlopen, lib.string()});
  Child opener({"sh", "-c", kOpenFd, header.string()});
  ASSERT_TRUE(mapper.ready() && opener.ready());
  wait_until_running(opener.pid(), "sleep");
  auto scan = make_process_finder()->find_holders({{lib.string(), *file_id(lib)}, {header.string(), *file_id(header)}});
  ASSERT_TRUE(scan) << scan.error().message;
  const Holder* m = holder_of(*scan, mapper.pid());
  const Holder* o = holder_of(*scan, opener.pid());
  ASSERT_TRUE(m) << describe_holders(*scan);
  ASSERT_TRUE(o) << describe_holders(*scan);
  EXPECT_EQ(m->how, Holder::How::Mapped);
  EXPECT_EQ(m->file, lib.string());
  EXPECT_NE(m->program.find("python"), std::string::npos);
  EXPECT_EQ(o->how, Holder::How::OpenFile);
  EXPECT_NE(o->program.find("sleep"), std::string::npos);
}

TEST(Locks, AReplacedLibraryIsStillSeenAsDeleted) {
  TempDir dir;
  fs::path lib = shared_library_in(dir.path());
  Child mapper({"python3", "-c", kDlopen, lib.string()});
  ASSERT_TRUE(mapper.ready());
  write_file(dir.path() / "new", "new library");
  fs::rename(dir.path() / "new", lib);  // what an install does
  auto scan = make_process_finder()->find_holders({{lib.string(), *file_id(lib)}});
  ASSERT_TRUE(scan);
  const Holder* h = holder_of(*scan, mapper.pid());
  ASSERT_TRUE(h) << describe_holders(*scan);
  EXPECT_EQ(h->how, Holder::How::MappedDeleted);
}

TEST(Locks, AProcessOfAnotherUserIsFoundOrUnknown) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to start a process as nobody";
  TempDir dir;
  fs::permissions(dir.path(), fs::perms(0755));
  fs::path file = dir.path() / "libcudnn.so.9";
  write_file(file, "x");
  fs::permissions(file, fs::perms(0644));
  Child other({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", kOpenFd, file.string()});
  ASSERT_TRUE(other.ready());
  auto scan = make_process_finder()->find_holders({{file.string(), *file_id(file)}});
  ASSERT_TRUE(scan);
  const Holder* h = holder_of(*scan, other.pid());
  bool unknown = std::find(scan->unknown.begin(), scan->unknown.end(), other.pid()) != scan->unknown.end();
  ASSERT_TRUE(h || unknown);
  if (h) {
    EXPECT_EQ(h->user, "nobody");
  }
}

TEST(Locks, CliWarnsByDefaultAndRefusesWithRequireNoHolders) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  fs::copy_file("/lib/x86_64-linux-gnu/libz.so.1", dir.path() / "lib/libcudnn.so.9.1.0",
                fs::copy_options::overwrite_existing);
  Child app({"python3", "-c", kDlopen, (dir.path() / "lib/libcudnn.so.9.1.0").string()});
  ASSERT_TRUE(app.ready());
  auto before = snapshot(dir.path());
  std::string archive = archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  std::string out, pid = "PID " + std::to_string(app.pid());
  EXPECT_EQ(run_command(std::string(CLI_PATH) + " --yes --no-verify --require-no-holders --cuda-root " +
                            dir.path().string() + " " + archive,
                        &out),
            3)
      << out;
  EXPECT_NE(out.find(pid), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
  EXPECT_EQ(run_command(std::string(CLI_PATH) + " --yes --no-verify --cuda-root " + dir.path().string() + " " + archive,
                        &out),
            0)
      << out;
  EXPECT_NE(out.find("keep running the old cuDNN until restarted"), std::string::npos) << out;
  EXPECT_NE(out.find("restart these to use the new cuDNN"), std::string::npos) << out;
  EXPECT_NE(out.find(pid), std::string::npos) << out;
}

// Issue 19: run as root (here: root of a user namespace, which cannot look into the processes
// outside it), the processes the scan could not inspect are not met with "run as root".
TEST(Locks, AsRootTheUninspectedProcessesAreNotAnsweredWithRunAsRoot) {
  if (run_command("unshare --user --map-root-user true") != 0) GTEST_SKIP() << "no user namespaces here";
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  fs::path lib = dir.path() / "lib/libcudnn.so.9.1.0";
  fs::copy_file("/lib/x86_64-linux-gnu/libz.so.1", lib, fs::copy_options::overwrite_existing);
  std::string archive = archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  // The holder runs in the namespace (so it is found); every process outside it cannot be inspected.
  std::string script =
      "python3 -c \"import ctypes,sys,time; ctypes.CDLL(sys.argv[1]); time.sleep(60)\" " + lib.string() +
      " >/dev/null & p=$!; until grep -q libcudnn.so.9.1.0 /proc/$p/maps 2>/dev/null; do sleep 0.05; "
      "done; " +
      CLI_PATH + " --yes --no-verify --cuda-root " + dir.path().string() + " " + archive + "; rc=$?; kill $p; exit $rc";
  std::string out;
  ASSERT_EQ(run_command("unshare --user --map-root-user sh -c '" + script + "' 2>&1", &out), 0) << out;
  EXPECT_NE(out.find("keep running the old cuDNN until restarted"), std::string::npos) << out;
  EXPECT_NE(out.find("could not be inspected even as root"), std::string::npos) << out;
  EXPECT_EQ(out.find("run as root to see all"), std::string::npos) << out;
}

// A dry run names the programs that hold files it would replace, and with --require-no-holders
// says the real run would be refused, with its exit code, writing nothing.
TEST(Locks, DryRunForeseesTheHolders) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  fs::copy_file("/lib/x86_64-linux-gnu/libz.so.1", dir.path() / "lib/libcudnn.so.9.1.0",
                fs::copy_options::overwrite_existing);
  Child app({"python3", "-c", kDlopen, (dir.path() / "lib/libcudnn.so.9.1.0").string()});
  ASSERT_TRUE(app.ready());
  auto before = snapshot(dir.path(), "");
  std::string archive = archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  std::string out, pid = "PID " + std::to_string(app.pid()),
                   cmd = std::string(CLI_PATH) + " --dry-run --cuda-root " + dir.path().string() + " " + archive;
  EXPECT_EQ(run_command(cmd + " --require-no-holders", &out), 3) << out;
  EXPECT_NE(out.find("would fail: "), std::string::npos) << out;
  EXPECT_NE(out.find(pid), std::string::npos) << out;
  EXPECT_EQ(run_command(cmd, &out), 0) << out;
  EXPECT_NE(out.find(pid), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
}
