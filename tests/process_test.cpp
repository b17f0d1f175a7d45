// The process runner (process.hpp) against a real child (support/process_child.cpp): both pipes
// drained together, the time limit, a program that is not there, and arguments that reach the
// child exactly (on Windows: through CreateProcessW's one command line and its quoting).
// Each test has a ctest TIMEOUT (tests/CMakeLists.txt), so a runner that deadlocks fails.
#include <gtest/gtest.h>

#include "base/util.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/utf8.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using cudnn_install::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Long enough for a loaded CI machine (or Wine) to start a child; a deadlock still fails by the
// runner's own limit, before the ctest TIMEOUT.
constexpr auto kPatience = std::chrono::seconds(30);

Result<ProcessOutput> run_child(std::vector<std::string> args, RunOptions options = {}) {
  options.timeout = std::min(options.timeout, std::chrono::milliseconds(kPatience));
  args.insert(args.begin(), PROCESS_CHILD);
  return make_process_runner()->run(args, options);
}

std::string flood(std::size_t n, char base) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>(base + i % 26));
  return s;
}

// What `process_child args ...` wrote back: the arguments it received, each ended by a NUL.
std::vector<std::string> split_at_nul(const std::string& out) {
  std::vector<std::string> parts;
  for (std::size_t start = 0, end; (end = out.find('\0', start)) != std::string::npos; start = end + 1)
    parts.push_back(out.substr(start, end - start));
  return parts;
}

// Arguments that a shell, or a naive join of a Windows command line, would change.
const std::vector<std::string> kAwkwardArguments = {
    "plain",
    "two words",
    "",
    " leading and trailing ",
    "tab\there",
    "\"quoted\"",
    "say \"hi\" twice \"\"",
    "back\\slash",
    "trailing backslash\\",
    "two trailing\\\\",
    "backslash before quote\\\"",
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\",
    "$HOME `id` $(id) ; | & > < * ? ~ ' %PATH% ^ !",
    "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x98\x80",  // café, 日本語, an emoji
};

}  // namespace

TEST(Process, BothPipesOfAMebibyteAreReadInFull) {
  constexpr std::size_t kBytes = 1u << 20;
  auto ran = run_child({"flood", std::to_string(kBytes)});
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_EQ(ran->end, ProcessOutput::End::Exited) << ran->describe();
  EXPECT_EQ(ran->code, 0);
  EXPECT_TRUE(ran->out == flood(kBytes, 'a')) << "stdout: " << ran->out.size() << " bytes";
  EXPECT_TRUE(ran->err == flood(kBytes, 'A') + "end") << "stderr: " << ran->err.size() << " bytes";
}

TEST(Process, OutputPastTheLimitIsReadAndDropped) {
  RunOptions options;
  options.max_output_bytes = 1000;
  auto ran = run_child({"flood", std::to_string(1u << 20)}, options);
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_TRUE(ran->succeeded()) << ran->describe();  // not blocked on a full pipe
  EXPECT_EQ(ran->out, flood(1000, 'a'));
  EXPECT_EQ(ran->err, flood(1000, 'A'));
}

TEST(Process, AChildPastItsTimeIsKilled) {
  RunOptions options;
  options.timeout = std::chrono::milliseconds(300);
  auto ran = run_child({"sleep", "600000"}, options);
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->end, ProcessOutput::End::TimedOut);
  EXPECT_FALSE(ran->succeeded());
  EXPECT_NE(ran->describe().find("time limit"), std::string::npos);
}

TEST(Process, AMissingProgramIsAnErrorThatNamesIt) {
  TempDir dir;
  std::string missing = utf8_text(dir.path() / "no-such-program");
  auto ran = make_process_runner()->run({missing, "x"}, RunOptions{});
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().code, ErrorCode::Io);
  EXPECT_NE(ran.error().message.find(missing), std::string::npos) << ran.error().message;

  auto bare = make_process_runner()->run({"cudnn-install-no-such-program-on-path"}, RunOptions{});
  ASSERT_FALSE(bare);
  EXPECT_NE(bare.error().message.find("cudnn-install-no-such-program-on-path"), std::string::npos);
  EXPECT_FALSE(make_process_runner()->run({}, RunOptions{}));
}

TEST(Process, TheExitStatusComesBack) {
  auto ran = run_child({"exit", "3"});
  ASSERT_TRUE(ran) << ran.error().message;
  EXPECT_EQ(ran->end, ProcessOutput::End::Exited);
  EXPECT_EQ(ran->code, 3);
  EXPECT_FALSE(ran->succeeded());
  EXPECT_EQ(ran->describe(), "exit status 3");
}

TEST(Process, StandardInputIsEmpty) {
  auto ran = run_child({"stdin"});
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_TRUE(ran->succeeded()) << ran->describe();
  EXPECT_EQ(ran->out, "0");
}

TEST(Process, ArgumentsReachTheChildExactly) {
  std::vector<std::string> args{"args"};
  args.insert(args.end(), kAwkwardArguments.begin(), kAwkwardArguments.end());
  auto ran = run_child(args);
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_TRUE(ran->succeeded()) << ran->describe() << "\n" << ran->err;
  EXPECT_EQ(split_at_nul(ran->out), kAwkwardArguments);
}

// The program's own path with a space and non-ASCII letters in it (a toolkit under "Program
// Files", a user's home directory): it is one argument too.
TEST(Process, AProgramWhosePathHasSpacesAndNonAsciiRuns) {
  TempDir dir;
  fs::path folder = dir.path() / fs::path(u8"caf\u00e9 \u65e5\u672c");
  fs::create_directories(folder);
  fs::path copy = folder / fs::path(PROCESS_CHILD).filename();
  fs::copy_file(PROCESS_CHILD, copy);
  auto ran = make_process_runner()->run({utf8_text(copy), "args", "a b"}, RunOptions{});
  ASSERT_TRUE(ran) << ran.error().message;
  ASSERT_TRUE(ran->succeeded()) << ran->describe();
  EXPECT_EQ(split_at_nul(ran->out), std::vector<std::string>{"a b"});
}
