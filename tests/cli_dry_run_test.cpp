// The real binary, end to end: --dry-run prints the plan and writes nothing anywhere.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

std::string corpus(const std::string& rel) { return std::string(CORPUS_DIR) + "/" + rel; }

}  // namespace

TEST(CliDryRun, LinuxArchiveIntoPipAssembledTreeWritesNothing) {
  TempDir dir;
  fs::path root = dir.path() / "cuda-13.0";
  make_linux_toolkit(root, 13000);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0\n");
  write_file(root / "lib/libcudnn.so.9", "old");
  auto before = snapshot(dir.path(), "");
  std::string out;
  int rc = run_command(cli() + " --dry-run --cuda-root " + root.string() + " " +
                           archive_args(corpus("good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz")),
                       &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("CUDA 13.0 (version from include/cuda.h"), std::string::npos) << out;
  EXPECT_NE(out.find("overwrite      lib/libcudnn.so.9 "), std::string::npos) << out;
  EXPECT_NE(out.find("overwrite      include/cudnn_version.h"), std::string::npos) << out;
  EXPECT_NE(out.find("create         lib/libcudnn_ops.so.9.19.0"), std::string::npos) << out;
  EXPECT_NE(out.find("LICENSE (license, not installed)"), std::string::npos) << out;
  EXPECT_NE(out.find("dry run: nothing was written."), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
}

TEST(CliDryRun, WindowsArchivesOfEachEraIntoAWindowsTree) {
  struct Case {
    const char* archive;
    const char* cuda;
    bool x64;
    const char* expect;
  } cases[] = {
      {"good/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip", "13.0.0", true,
       "create         bin/x64/cudnn64_9.dll"},
      {"good/cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip", "13.0.0", false, "create         bin/cudnn64_9.dll"},
      {"good/cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip", "12.4.1", false,
       "create         lib/x64/cudnn_adv_train.lib"},
      {"good/cudnn-windows-x86_64-8.3.2.44_cuda11.5-archive.zip", "11.8.0", false, "create         lib/x64/cudnn.lib"},
      {"good/cudnn-11.4-windows-x64-v8.2.2.26.zip", "11.4.0", false, "create         bin/cudnn_ops_infer64_8.dll"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    make_windows_toolkit(dir.path(), c.cuda, c.x64);
    auto before = snapshot(dir.path(), "");
    std::string out;
    int rc = run_command(
        cli() + " --dry-run --cuda-root " + dir.path().string() + " " + archive_args(corpus(c.archive)), &out);
    EXPECT_EQ(rc, 0) << c.archive << "\n" << out;
    EXPECT_NE(out.find(c.expect), std::string::npos) << c.archive << "\n" << out;
    EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
  }
}

TEST(CliDryRun, JsonPlanHasTheVersionedSchema) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  std::string out;
  int rc =
      run_command(cli() + " --dry-run --json --cuda-root " + dir.path().string() + " " +
                      archive_args(corpus("good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz")) + " 2>/dev/null",
                  &out);
  ASSERT_EQ(rc, 0) << out;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["schema"], "cudnn-install/2");
  EXPECT_EQ(j["kind"], "install");
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["plan"]["archive"]["header_version_number"], 91900);
  EXPECT_EQ(j["plan"]["totals"]["create"], j["plan"]["steps"].size());
}

TEST(CliDryRun, RefusalsHaveExitCodesAndChangeNothing) {
  struct Case {
    std::string archive;
    int cuda;
    int exit_code;
    const char* message;
  } cases[] = {
      {corpus("good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"), 12080, 2, "built for CUDA 13"},
      {corpus("hostile/dotdot/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"), 13000, 2, "'..'"},
      {corpus("hostile/renamed/cudnn.zip"), 13000, 2, "not a cuDNN archive name"},
      {corpus("hostile/truncated-xz/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"), 13000, 2,
       "corrupt or truncated"},
      {"/nonexistent/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz", 13000, 1, "does not exist"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    make_linux_toolkit(dir.path(), c.cuda);
    auto before = snapshot(dir.path(), "");
    std::string out;
    int rc = run_command(cli() + " --dry-run --cuda-root " + dir.path().string() + " " + archive_args(c.archive), &out);
    EXPECT_EQ(rc, c.exit_code) << c.archive << "\n" << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << out;
    EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
  }
}

TEST(CliDryRun, HelpAndVersion) {
  std::string out;
  EXPECT_EQ(run_command(cli() + " --help", &out), 0);
  EXPECT_NE(out.find("--dry-run"), std::string::npos);
  EXPECT_NE(out.find("Exit codes"), std::string::npos);
  EXPECT_EQ(run_command(cli() + " --version", &out), 0);
  EXPECT_NE(out.find("cudnn-install 0."), std::string::npos);
}

// The machine's real cuDNN 9.19 packed by scripts/make-test-archive.sh (skipped when absent).
TEST(CliDryRun, RealCudnnArchive) {
  fs::path archive = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  if (!fs::exists(archive)) GTEST_SKIP() << "no real cuDNN on this machine (scripts/make-test-archive.sh made none)";
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  auto before = snapshot(dir.path(), "");
  std::string out;
  ASSERT_EQ(run_command(cli() + " --dry-run --cuda-root " + dir.path().string() + " " + archive_args(archive), &out), 0)
      << out;
  EXPECT_NE(out.find("cuDNN 9.19.0.56 for CUDA 13"), std::string::npos) << out;
  EXPECT_NE(out.find("says 9.19.0"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
}
