// The real binary's command contract (issue 19): previews that write nothing, confirmations,
// flags that contradict each other, and commands printed for people to paste.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "cudnn_install/integrity.hpp"
#include "cudnn_install/shell_quote.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// Every entry under dir: path, type, mode, size, sha256 and modification time (directories too,
// whose time moves when an entry is created or removed in them, even if it is removed again).
std::string tree_manifest(const fs::path& dir) {
  std::string out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    struct stat st {};
    lstat(it->path().c_str(), &st);
    std::string sha = S_ISREG(st.st_mode) ? cudnn_install::sha256_file(it->path()).value_or("?") : "-";
    out += it->path().lexically_relative(dir).string() + " " + std::to_string(st.st_mode) + " " +
           std::to_string(st.st_size) + " " + sha + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + "\n";
  }
  return out;
}

// A toolkit with cuDNN 9.1 under dir/cuda, 9.19 installed over it with a loader entry in dir/etc.
struct Installed {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  std::string env = "CUDNN_INSTALL_ETC=" + (dir.path() / "etc").string() + " ";
  std::string r = " --cuda-root " + root.string();
  Installed() {
    make_tree_with_old_cudnn(root);
    fs::create_directories(dir.path() / "etc/ld.so.conf.d");
    write_file(dir.path() / "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  }
  int run(const std::string& args, std::string* out) { return run_command(env + cli() + " " + args + r, out); }
  void install() {
    std::string out;
    ASSERT_EQ(run("--yes --no-verify --loader-config system " + corpus_args(), &out), 0) << out;
  }
};

}  // namespace

TEST(CliFlags, ContradictoryOrIgnoredFlagsAreUsageErrorsThatChangeNothing) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  std::string r = " --cuda-root " + root.string() + " ";
  struct Case {
    std::string args;
    const char* message;
  } cases[] = {
      {"-q -v --dry-run" + r + corpus_args(), "--quiet and --verbose contradict each other"},
      {"--rollback" + r + corpus_args(), "--rollback undoes the last transaction and takes no archive"},
      {"--dry-run --no-path --loader-config system" + r + corpus_args(), "--no-path and --loader-config system"},
      {"--dry-run --no-path --system" + r + corpus_args(), "--no-path and --system contradict"},
      {"--dry-run --replace-in-use --require-no-holders" + r + corpus_args(), "--replace-in-use and"},
      {"--rollback --no-verify" + r, "--no-verify applies to an install, not to --rollback"},
      {"--no-path uninstall --yes" + r, "--no-path applies to an install, not to uninstall"},
      {"--dry-run verify" + r, "`verify` changes nothing anyway"},
      {"--mirror /tmp --dry-run" + r + corpus_args(), "--mirror applies to an install by version"},
      // A path with spaces, unquoted: the words left over in the order typed, and how to quote.
      {"status" + r + "Files/NVIDIA GPU",
       "these arguments were not expected: 'Files/NVIDIA' 'GPU' (a path with spaces goes in quotes: --cuda-root "
       "\"/opt/my cuda\")"},
      {"status" + r + "one", "this argument was not expected: 'one'"},
  };
  auto before = snapshot(dir.path(), "");
  for (const auto& c : cases) {
    std::string out;
    EXPECT_EQ(run_command(cli() + " " + c.args, &out), 1) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.args << "\n" << out;
  }
  EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
  std::string out;  // the same flags one at a time are fine
  EXPECT_EQ(run_command(cli() + " -q --dry-run --loader-config system" + r + corpus_args(), &out), 0) << out;
  EXPECT_EQ(run_command(cli() + " -v --dry-run --no-path --loader-config none" + r + corpus_args(), &out), 0) << out;
}

TEST(CliPreview, DryRunsOfRollbackUninstallAndInstallWriteNothing) {
  Installed t;
  t.install();
  auto before = tree_manifest(t.dir.path());
  std::string out;
  ASSERT_EQ(t.run("--rollback --dry-run", &out), 0) << out;
  EXPECT_NE(out.find("roll back transaction "), std::string::npos) << out;
  EXPECT_NE(out.find("restore  include/cudnn.h ("), std::string::npos) << out;
  EXPECT_NE(out.find("remove   lib/libcudnn_ops.so.9.19.0 ("), std::string::npos) << out;
  EXPECT_NE(out.find("remove   " + (t.dir.path() / "etc/ld.so.conf.d/cudnn-install-").string()), std::string::npos)
      << out;
  EXPECT_NE(out.find("then run ldconfig"), std::string::npos) << out;
  EXPECT_NE(out.find("dry run: nothing was written."), std::string::npos) << out;
  EXPECT_EQ(tree_manifest(t.dir.path()), before);
  // The JSON answer names the transaction the real run would undo (it was null, against the schema).
  ASSERT_EQ(t.run("--rollback --dry-run --json 2>/dev/null", &out), 0) << out;
  auto answer = nlohmann::json::parse(out);
  ASSERT_TRUE(answer["transaction"].is_object()) << out;
  EXPECT_FALSE(answer["transaction"]["id"].get<std::string>().empty()) << out;
  EXPECT_EQ(answer["transaction"]["cudnn_version"], "9.19.0.56") << out;
  EXPECT_EQ(tree_manifest(t.dir.path()), before);

  ASSERT_EQ(t.run("uninstall --dry-run", &out), 0) << out;
  EXPECT_NE(out.find("undo install of cuDNN 9.19.0.56"), std::string::npos) << out;
  EXPECT_NE(out.find("left in place: "), std::string::npos) << out;
  EXPECT_EQ(tree_manifest(t.dir.path()), before);
  ASSERT_EQ(t.run("uninstall --dry-run --force", &out), 0) << out;
  EXPECT_NE(out.find("cuDNN files cudnn-install did not install (--force"), std::string::npos) << out;
  EXPECT_NE(out.find("remove   lib/libcudnn.so.9.1.0 ("), std::string::npos) << out;
  EXPECT_EQ(tree_manifest(t.dir.path()), before);
  ASSERT_EQ(t.run("uninstall --dry-run --json 2>/dev/null", &out), 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["kind"], "uninstall");
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["changed"], true);
  EXPECT_FALSE(j["changes"].empty());
  EXPECT_EQ(t.run("--dry-run " + corpus_args(), &out), 0) << out;
  EXPECT_EQ(tree_manifest(t.dir.path()), before);

  // What the dry run listed is what the real rollback does.
  ASSERT_EQ(t.run("--rollback --yes", &out), 0) << out;
  EXPECT_FALSE(fs::exists(t.root / "lib/libcudnn_ops.so.9.19.0"));
  for (const auto& e : fs::directory_iterator(t.dir.path() / "etc/ld.so.conf.d"))  // the toolkit's entry is gone
    EXPECT_FALSE(e.path().filename().string().starts_with("cudnn-install-")) << e.path();
  auto after = tree_manifest(t.dir.path());
  EXPECT_EQ(t.run("--rollback --dry-run", &out), 6) << out;
  EXPECT_NE(out.find("would fail: nothing to roll back"), std::string::npos) << out;
  EXPECT_EQ(tree_manifest(t.dir.path()), after);
}

TEST(CliConfirm, RollbackAndUninstallAskOnATerminalAndRefuseWithoutOne) {
  Installed t;
  t.install();
  auto before = tree_manifest(t.dir.path());
  std::string out, pty = "python3 " + std::string(SOURCE_DIR) + "/tests/support/pty_run.py ";
  auto on_terminal = [&](const std::string& answer, const std::string& args) {
    return run_command(t.env + pty + answer + " " + cli() + " " + args + t.r, &out);
  };
  EXPECT_EQ(t.run("--rollback < /dev/null", &out), 1) << out;
  EXPECT_NE(out.find("pass --yes to roll back without asking"), std::string::npos) << out;
  EXPECT_EQ(t.run("uninstall < /dev/null", &out), 1) << out;
  EXPECT_NE(out.find("pass --yes to uninstall without asking"), std::string::npos) << out;
  EXPECT_EQ(on_terminal("n", "--rollback"), 1) << out;
  EXPECT_NE(out.find("restore  include/cudnn.h"), std::string::npos) << out;
  EXPECT_NE(out.find("Proceed? [y/N]"), std::string::npos) << out;
  EXPECT_NE(out.find("cancelled; nothing was changed"), std::string::npos) << out;
  EXPECT_EQ(on_terminal("n", "uninstall"), 1) << out;
  EXPECT_NE(out.find("undo install of cuDNN 9.19.0.56"), std::string::npos) << out;
  // The lock and log of the real runs are in the state directory; the toolkit's files are untouched.
  auto now = tree_manifest(t.dir.path());
  auto toolkit_only = [](const std::string& m) {
    std::string kept;
    std::istringstream in(m);
    for (std::string line; std::getline(in, line);)
      if (!line.starts_with("cuda/.cudnn-install") && !line.starts_with("cuda ")) kept += line + "\n";
    return kept;
  };
  EXPECT_EQ(toolkit_only(now), toolkit_only(before));
  EXPECT_EQ(on_terminal("y", "--rollback"), 0) << out;
  EXPECT_NE(out.find("rolled back transaction"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(t.root / "lib/libcudnn_ops.so.9.19.0"));
}

TEST(CliPreview, DryRunAsAnotherUserForeseesThePermissionFailureOfTheRealRun) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run as nobody";
  Installed t;
  fs::permissions(t.dir.path(), fs::perms(0755));
  std::string nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  std::string args = " --loader-config none" + t.r + " " + corpus_args();
  for (bool installed : {false, true}) {
    if (installed) t.install();  // now the state directory and its lock exist, root's
    auto before = tree_manifest(t.dir.path());
    std::string out;
    EXPECT_EQ(run_command(nobody + cli() + " --dry-run" + args, &out), 4) << out;
    EXPECT_NE(out.find("would fail: "), std::string::npos) << out;
    EXPECT_NE(out.find("permission denied"), std::string::npos) << out;
    EXPECT_EQ(tree_manifest(t.dir.path()), before);
    EXPECT_EQ(run_command(nobody + cli() + " --yes --no-verify" + args, &out), 4) << out;
    if (!installed) continue;
    EXPECT_EQ(run_command(nobody + cli() + " --rollback --dry-run" + t.r, &out), 4) << out;
    EXPECT_NE(out.find("would fail: "), std::string::npos) << out;
    EXPECT_EQ(run_command(nobody + cli() + " --rollback --yes" + t.r, &out), 4) << out;
    EXPECT_EQ(run_command(nobody + cli() + " uninstall --dry-run" + t.r, &out), 4) << out;
  }
}

TEST(CliPreview, DryRunWarnsAboutWritesOutsideTheToolkitsRealPath) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  fs::rename(root / "include", dir.path() / "shared-include");
  fs::create_directory_symlink(dir.path() / "shared-include", root / "include");
  std::string out;
  ASSERT_EQ(
      run_command(cli() + " --dry-run --loader-config none --cuda-root " + root.string() + " " + corpus_args(), &out),
      0)
      << out;
  EXPECT_NE(out.find("include/ is " + (dir.path() / "shared-include").string() + ", outside the toolkit's real path"),
            std::string::npos)
      << out;
}

// The printed undo command, pasted into sh as it is, undoes the install of a toolkit whose path
// has spaces, quotes, $, % and non-ASCII letters.
TEST(CliPaste, TheUndoCommandWorksWhenPastedIntoSh) {
  TempDir dir;
  fs::path root = dir.path() / "my cuda 'x' $HOME %PATH% & ünï" / "cuda-13.0";
  make_tree_with_old_cudnn(root);
  auto before = snapshot(root);
  std::string out;
  ASSERT_EQ(run_command(cli() + " --yes --no-verify --loader-config print --cuda-root " +
                            cudnn_install::quote_arg(root.string(), cudnn_install::Shell::Posix) + " " + corpus_args(),
                        &out),
            0)
      << out;
  auto at = out.find("undo with: ");
  ASSERT_NE(at, std::string::npos) << out;
  std::string undo = out.substr(at + 11, out.find('\n', at) - at - 11);
  EXPECT_NE(out.find("export LD_LIBRARY_PATH='"), std::string::npos) << out;
  write_file(dir.path() / "paste.sh", undo + "\n");
  std::string pty = "python3 " + std::string(SOURCE_DIR) + "/tests/support/pty_run.py y sh ";
  ASSERT_EQ(run_command(pty + (dir.path() / "paste.sh").string(), &out), 0) << undo << "\n" << out;
  EXPECT_NE(out.find("rolled back transaction"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

TEST(CliLog, TheLogGoesWhereAskedAndNoFolderIsCreatedForIt) {
  Installed t;
  std::string out;
  fs::path log = t.dir.path() / "install.log";
  ASSERT_EQ(t.run("--dry-run --log " + log.string() + " " + corpus_args(), &out), 0) << out;
  EXPECT_TRUE(fs::file_size(log) > 0) << out;
  // A typo in the folder: run as root, spdlog would have created it (and any parent) anywhere.
  fs::path missing = t.root / "lib64" / "typo";
  ASSERT_EQ(t.run("--dry-run --log " + (missing / "install.log").string() + " " + corpus_args(), &out), 0) << out;
  EXPECT_NE(out.find("no log is written: the folder " + missing.string() + " of --log does not exist"),
            std::string::npos)
      << out;
  EXPECT_FALSE(fs::exists(missing));
  ASSERT_EQ(t.run("--json --dry-run --log " + (missing / "install.log").string() + " " + corpus_args() + " 2>/dev/null",
                  &out),
            0)
      << out;
  EXPECT_NE(out.find("no log is written"), std::string::npos) << "the warning is in the answer too:\n" << out;
}
