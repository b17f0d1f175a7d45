// verify on real trees: the machine's own cuDNN, incomplete installs, broken and crashing libraries.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/sandbox.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// The CUDA toolkit of this machine that holds a real cuDNN, if any.
std::optional<fs::path> real_toolkit() {
  std::string out;
  if (run_command("dirname \"$(dirname \"$(readlink -f \"$(command -v nvcc)\")\")\"", &out) == 0) {
    fs::path root = out.substr(0, out.find('\n'));
    if (fs::exists(root / "include/cudnn_version.h")) return root;
  }
  for (const char* root : {"/usr/local/cuda"})
    if (fs::exists(fs::path(root) / "include/cudnn_version.h")) return fs::path(root);
  return std::nullopt;
}

nlohmann::json verify_json(const fs::path& root, int* rc) {
  std::string out;
  *rc = run_command(cli() + " verify --json --cuda-root " + root.string() + " 2>/dev/null", &out);
  return nlohmann::json::parse(out, nullptr, false);
}

void fake_cudnn_tree(const fs::path& root, const std::string& main_library_bytes) {
  make_linux_toolkit(root, 13000);
  write_file(root / "include/cudnn_version.h",
             "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n");
  write_file(root / "lib/libcudnn.so.9", main_library_bytes);
  for (const char* sub : {"adv", "cnn", "engines_precompiled", "engines_runtime_compiled", "graph", "heuristic", "ops"})
    write_file(root / "lib" / (std::string("libcudnn_") + sub + ".so.9"), "stand-in");
}

}  // namespace

TEST(Verify, TheMachinesRealCudnn) {
  auto root = real_toolkit();
  if (!root) GTEST_SKIP() << "no real cuDNN on this machine";
  bool had_state_dir = fs::exists(*root / ".cudnn-install");
  auto root_mtime = fs::last_write_time(*root);
  int rc = 0;
  auto j = verify_json(*root, &rc);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(rc, 0) << j.dump(2);
  EXPECT_TRUE(j["ok"].get<bool>()) << j.dump(2);
  EXPECT_EQ(j["header_number"], 91900);
  EXPECT_EQ(j["libraries"].size(), 8u);
  for (const auto& lib : j["libraries"]) EXPECT_TRUE(lib["present"].get<bool>()) << lib.dump();
  EXPECT_EQ(j["runtime"]["load"], "loaded");
  EXPECT_EQ(j["runtime"]["version"], 91900);
  EXPECT_EQ(j["runtime"]["status_text"], "CUDNN_STATUS_SUCCESS");
  if (j["runtime"]["gpu"] != "used") {
    EXPECT_NE(j["notes"].dump().find("no GPU: version check only"), std::string::npos) << j.dump(2);
  }
  EXPECT_EQ(fs::exists(*root / ".cudnn-install"), had_state_dir) << "verify must not write";
  EXPECT_EQ(fs::last_write_time(*root), root_mtime) << "verify must not write";
}

TEST(Verify, AnInstallWithoutItsSubLibrariesFails) {
  fs::path archive = fs::path(REAL_ARCHIVE_DIR) / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  if (!fs::exists(archive)) GTEST_SKIP() << "no real cuDNN on this machine";
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  std::string out;
  EXPECT_EQ(run_command(cli() + " --yes --cuda-root " + dir.path().string() + " " + archive_args(archive), &out), 5)
      << out;
  EXPECT_NE(out.find("libcudnn_ops.so.9 is missing"), std::string::npos) << out;
  EXPECT_NE(out.find("cudnnGetVersion() = 91900"), std::string::npos) << out;
  EXPECT_NE(out.find("verification FAILED"), std::string::npos) << out;
}

TEST(Verify, ALibraryThatIsNotOneIsReportedNotFatal) {
  TempDir dir;
  fake_cudnn_tree(dir.path(), "this is not an ELF file");
  int rc = 0;
  auto j = verify_json(dir.path(), &rc);
  EXPECT_EQ(rc, 5);
  EXPECT_EQ(j["runtime"]["load"], "failed");
  EXPECT_NE(j["problems"].dump().find("loading"), std::string::npos) << j.dump(2);
}

TEST(Verify, ALibraryThatCrashesOnLoadKillsOnlyTheChild) {
  TempDir dir;
  fake_cudnn_tree(dir.path(), read_file(CRASHING_CUDNN));
  int rc = 0;
  auto j = verify_json(dir.path(), &rc);
  EXPECT_EQ(rc, 5);
  EXPECT_EQ(j["runtime"]["load"], "crashed") << j.dump(2);
  EXPECT_NE(j["runtime"]["detail"].get<std::string>().find("Aborted"), std::string::npos) << j.dump(2);
}

TEST(Verify, MixedVersionsInTheSymlinkChain) {
  TempDir dir;
  fake_cudnn_tree(dir.path(), "x");
  fs::remove(dir.path() / "lib/libcudnn_ops.so.9");
  write_file(dir.path() / "lib/libcudnn_ops.so.9.1.0", "old ops");
  fs::create_symlink("libcudnn_ops.so.9.1.0", dir.path() / "lib/libcudnn_ops.so.9");
  int rc = 0;
  auto j = verify_json(dir.path(), &rc);
  EXPECT_EQ(rc, 5);
  EXPECT_NE(j["problems"].dump().find("libcudnn_ops.so.9 is version 9.1.0 but the header says 9.19.0"),
            std::string::npos)
      << j.dump(2);
}

TEST(Verify, NoCudnnAtAll) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  std::string out;
  EXPECT_EQ(run_command(cli() + " verify --cuda-root " + dir.path().string(), &out), 5);
  EXPECT_NE(out.find("no cuDNN is installed"), std::string::npos) << out;
}
