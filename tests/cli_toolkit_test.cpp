// The real binary choosing its toolkit without --cuda-root (issue 19, "Finding the toolkit"):
// two toolkits, one named by CUDA_HOME, is that one, and the output says so; two and no variable
// is a refusal in the words of the command (no "archive" for verify, doctor and status).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sandbox.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// Two fake toolkits, each named by its CUDA_PATH_Vx_y (which chooses nothing), in a sandbox /etc.
// The machine's own toolkits (/usr/local/cuda*) may be found too: they only lengthen the lists.
struct TwoToolkits {
  TempDir dir;
  fs::path cuda12 = dir.path() / "cuda-12.4", cuda13 = dir.path() / "cuda-13.0";
  TwoToolkits() {
    make_linux_toolkit(cuda12, 12040);
    make_linux_toolkit(cuda13, 13000);
    write_file(dir.path() / "etc/ld.so.conf", "");
  }
  int run(const std::string& variables, const std::string& args, std::string* out) const {
    std::string env = "env -u CUDA_PATH -u CUDA_HOME -u CUDA_ROOT PATH=/usr/bin:/bin CUDNN_INSTALL_ETC=" +
                      (dir.path() / "etc").string() +
                      " CUDNN_INSTALL_LDCONFIG=true CUDA_PATH_V12_4=" + cuda12.string() +
                      " CUDA_PATH_V13_0=" + cuda13.string() + " " + variables + " ";
    return run_command(env + cli() + " " + args + " </dev/null", out);
  }
};

bool output_has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(CliToolkitChoice, CudaHomeNamesTheToolkitAndTheOutputSaysSo) {
  TwoToolkits t;
  std::string out;
  std::string home = "CUDA_HOME=" + t.cuda12.string();
  EXPECT_NE(t.run(home, "verify", &out), 3) << out;
  EXPECT_TRUE(output_has(out, "toolkit  " + t.cuda12.string() + "  (from CUDA_HOME; also found: " + t.cuda13.string() +
                                  " (CUDA 13.0, CUDA_PATH_V13_0)"))
      << out;
  EXPECT_TRUE(output_has(out, "use --cuda-root to pick another")) << out;
  EXPECT_TRUE(output_has(out, "no cuDNN is installed in " + t.cuda12.string())) << out;  // verified that one
  EXPECT_FALSE(output_has(out, "several CUDA toolkits")) << out;

  EXPECT_EQ(t.run(home, "status", &out), 0) << out;
  EXPECT_TRUE(output_has(out, "without --cuda-root, commands use " + t.cuda12.string() + "  (from CUDA_HOME")) << out;
  EXPECT_TRUE(output_has(out, "found by CUDA_HOME (also CUDA_PATH_V12_4)")) << out;

  t.run(home, "verify --json 2>/dev/null", &out);
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  EXPECT_TRUE(output_has(j["message"].get<std::string>(), t.cuda12.string())) << out;
  EXPECT_EQ(j["toolkit_choice"]["chosen_by"], "CUDA_HOME") << out;
  EXPECT_EQ(j["toolkit_choice"]["root"], t.cuda12.string()) << out;

  t.run(home, "status --json 2>/dev/null", &out);
  j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  EXPECT_EQ(j["toolkit_choice"]["chosen_by"], "CUDA_HOME") << out;
}

TEST(CliToolkitChoice, SeveralToolkitsWithoutAVariableAreRefusedInTheWordsOfTheCommand) {
  TwoToolkits t;
  std::string out;
  for (const char* command : {"verify", "doctor", "uninstall --dry-run"}) {
    EXPECT_EQ(t.run("", command, &out), 3) << command << "\n" << out;
    EXPECT_TRUE(output_has(out, "several CUDA toolkits are installed; choose one with --cuda-root:")) << out;
    EXPECT_FALSE(output_has(out, "archive")) << out;
    EXPECT_TRUE(output_has(out, t.cuda12.string() + "  (CUDA 12.4, found by CUDA_PATH_V12_4)")) << out;
    EXPECT_TRUE(output_has(out, t.cuda13.string() + "  (CUDA 13.0, found by CUDA_PATH_V13_0)")) << out;
  }
  EXPECT_EQ(t.run("", "status", &out), 0) << out;  // status lists them all, and says what the others need
  EXPECT_TRUE(output_has(out, "several CUDA toolkits are installed: commands other than status need --cuda-root"))
      << out;
  EXPECT_EQ(t.run("", "verify --json 2>/dev/null", &out), 3) << out;
  auto j = nlohmann::json::parse(out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  EXPECT_EQ(j["code"], "no-toolkit") << out;
}

TEST(CliToolkitChoice, AVariableThatNamesNoToolkitIsSaidNotSilentlyPassedOver) {
  TwoToolkits t;
  std::string out;
  std::string gone = (t.dir.path() / "CUDA" / "v12.2").string();  // an uninstalled toolkit's CUDA_PATH
  std::string vars = "CUDA_PATH=" + gone + " CUDA_HOME=" + t.cuda13.string();
  t.run(vars, "verify", &out);
  EXPECT_TRUE(output_has(out, "'" + gone + "' (CUDA_PATH) is not a directory; CUDA_PATH was ignored")) << out;
  EXPECT_TRUE(output_has(out, "toolkit  " + t.cuda13.string() + "  (from CUDA_HOME")) << out;

  t.run(vars, "verify --json", &out);  // (run() sends stderr, the warning, into `out` too: it comes first)
  EXPECT_TRUE(output_has(out, "warning: '" + gone + "' (CUDA_PATH) is not a directory")) << out;
  auto j = nlohmann::json::parse(out.substr(std::min(out.find('{'), out.size())), nullptr, false);
  ASSERT_TRUE(j.is_object()) << out;
  ASSERT_EQ(j["toolkit_choice"]["notes"].size(), 1u) << out;
  EXPECT_EQ(j["warnings"][0], j["toolkit_choice"]["notes"][0]) << out;
  EXPECT_TRUE(output_has(j["toolkit_choice"]["notes"][0].get<std::string>(), "CUDA_PATH was ignored")) << out;

  EXPECT_EQ(t.run("CUDA_PATH=" + gone, "verify", &out), 3) << out;  // two toolkits left: the refusal says why
  EXPECT_TRUE(output_has(out, "several CUDA toolkits are installed")) << out;
  EXPECT_TRUE(output_has(out, "CUDA_PATH was ignored")) << out;
}

TEST(CliToolkitChoice, CudaRootStillDecidesAlone) {
  TwoToolkits t;
  std::string out;
  t.run("CUDA_HOME=" + t.cuda12.string(), "verify --cuda-root " + t.cuda13.string(), &out);
  EXPECT_TRUE(output_has(out, "no cuDNN is installed in " + t.cuda13.string())) << out;
  EXPECT_FALSE(output_has(out, "from CUDA_HOME")) << out;
}
