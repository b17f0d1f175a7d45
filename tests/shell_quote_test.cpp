// Quoting of commands printed for people to paste: POSIX words run through sh itself; the
// PowerShell and cmd rules as exact strings (neither shell runs here).
#include <gtest/gtest.h>

#include "cudnn_install/shell_quote.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using cudnn_install::test::run_command;

namespace {

const char* const kHardWords[] = {"plain",      "with space",    "it's",        "$HOME",         "%PATH%",
                                  "a&b|c;d",    "naïve/日本",    "back\\slash", "\"double\"",    "*glob?[x]",
                                  "`tick`",     "~user",         "-dash",       "a'b'\"c\"$(d)", "new\nline",
                                  "trailing\\", "‘typographic’", "!bang",       "#hash",         "x=y"};

}  // namespace

TEST(ShellQuote, PosixWordsComeBackExactlyThroughSh) {
  for (const char* word : kHardWords) {
    std::string out;
    ASSERT_EQ(run_command("printf '[%s]' " + quote_arg(word, Shell::Posix), &out), 0) << word;
    EXPECT_EQ(out, std::string("[") + word + "]") << quote_arg(word, Shell::Posix);
  }
  std::string out;
  ASSERT_EQ(run_command("printf '[%s]' " + quote_arg("", Shell::Posix), &out), 0);
  EXPECT_EQ(out, "[]");
}

TEST(ShellQuote, PosixLeavesPlainWordsAlone) {
  EXPECT_EQ(quote_arg("--cuda-root", Shell::Posix), "--cuda-root");
  EXPECT_EQ(quote_arg("/usr/local/cuda-13.0", Shell::Posix), "/usr/local/cuda-13.0");
  EXPECT_EQ(quote_arg("/opt/my cuda", Shell::Posix), "'/opt/my cuda'");
  EXPECT_EQ(quote_arg("it's", Shell::Posix), "'it'\\''s'");
  EXPECT_EQ(command_line({"/opt/x y/cudnn-install", "--rollback"}, Shell::Posix),
            "'/opt/x y/cudnn-install' --rollback");
}

TEST(ShellQuote, ExportLineKeepsTheOldValueAndSurvivesSh) {
  std::string line = export_prepend_line("LD_LIBRARY_PATH", "/opt/it's $x/lib");
  EXPECT_EQ(line, "export LD_LIBRARY_PATH='/opt/it'\\''s $x/lib'\"${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\"");
  std::string out;
  ASSERT_EQ(
      run_command("LD_LIBRARY_PATH='/a b:/c' sh -c '" + std::string("eval \"$0\"; printf %s \"$LD_LIBRARY_PATH\"' ") +
                      quote_arg(line, Shell::Posix),
                  &out),
      0);
  EXPECT_EQ(out, "/opt/it's $x/lib:/a b:/c");
  ASSERT_EQ(run_command("env -u LD_LIBRARY_PATH sh -c 'eval \"$0\"; printf %s \"$LD_LIBRARY_PATH\"' " +
                            quote_arg(line, Shell::Posix),
                        &out),
            0);
  EXPECT_EQ(out, "/opt/it's $x/lib");
}

TEST(ShellQuote, SetVariableLinesForEachShell) {
  std::string line = set_variable_line("CUDNN_PATH", "/opt/it's $x/CUDA Ünï", Shell::Posix);
  EXPECT_EQ(line, "export CUDNN_PATH='/opt/it'\\''s $x/CUDA Ünï'");
  std::string out;
  ASSERT_EQ(run_command("sh -c 'eval \"$0\"; printf %s \"$CUDNN_PATH\"' " + quote_arg(line, Shell::Posix), &out), 0);
  EXPECT_EQ(out, "/opt/it's $x/CUDA Ünï");
  EXPECT_EQ(set_variable_line("CUDNN_PATH", "/usr/local/cuda", Shell::Posix), "export CUDNN_PATH=/usr/local/cuda");
  const std::string root = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
  EXPECT_EQ(set_variable_line("CUDNN_PATH", root, Shell::PowerShell), "$env:CUDNN_PATH = '" + root + "'");
  EXPECT_EQ(set_variable_line("CUDNN_PATH", "C:\\CUDA", Shell::PowerShell), "$env:CUDNN_PATH = 'C:\\CUDA'");
  EXPECT_EQ(set_variable_line("CUDNN_PATH", "C:\\it's", Shell::PowerShell), "$env:CUDNN_PATH = 'C:\\it''s'");
  EXPECT_EQ(set_variable_line("CUDNN_PATH", root, Shell::Cmd), "set CUDNN_PATH=" + root);
  EXPECT_EQ(set_variable_line("CUDNN_PATH", "C:\\a&b %x%", Shell::Cmd), "set CUDNN_PATH=C:\\a^&b ^%x^%");
}

TEST(ShellQuote, PowerShellSingleQuotesWithDoubledQuotes) {
  const std::string root = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4";
  EXPECT_EQ(quote_arg(root, Shell::PowerShell), "'" + root + "'");
  EXPECT_EQ(quote_arg("C:\\CUDA\\v12.4", Shell::PowerShell), "C:\\CUDA\\v12.4");
  EXPECT_EQ(quote_arg("--rollback", Shell::PowerShell), "--rollback");
  EXPECT_EQ(quote_arg("C:\\it's", Shell::PowerShell), "'C:\\it''s'");
  EXPECT_EQ(quote_arg("C:\\$env:x", Shell::PowerShell), "'C:\\$env:x'");
  EXPECT_EQ(quote_arg("C:\\a&b %x%", Shell::PowerShell), "'C:\\a&b %x%'");
  EXPECT_EQ(quote_arg("C:\\Jörg", Shell::PowerShell), "'C:\\Jörg'");
  EXPECT_EQ(quote_arg("C:\\a‘b’", Shell::PowerShell), "'C:\\a‘‘b’’'");  // PowerShell's other single quotes
  EXPECT_EQ(quote_arg("", Shell::PowerShell), "''");
  EXPECT_EQ(command_line({"C:\\Program Files\\cudnn-install\\cudnn-install.exe", "--rollback", "--cuda-root", root},
                         Shell::PowerShell),
            "& 'C:\\Program Files\\cudnn-install\\cudnn-install.exe' --rollback --cuda-root '" + root + "'");
  EXPECT_EQ(command_line({"cudnn-install", "--rollback"}, Shell::PowerShell), "cudnn-install --rollback");
}

TEST(ShellQuote, CmdDoubleQuotesWithCaretsForItsOwnSigns) {
  EXPECT_EQ(quote_arg("C:\\Program Files\\CUDA", Shell::Cmd), "\"C:\\Program Files\\CUDA\"");
  EXPECT_EQ(quote_arg("C:\\CUDA\\v12.4", Shell::Cmd), "C:\\CUDA\\v12.4");
  EXPECT_EQ(quote_arg("C:\\it's here", Shell::Cmd), "\"C:\\it's here\"");
  // A trailing backslash is doubled, or the C runtime would read \" as a quote.
  EXPECT_EQ(quote_arg("C:\\my dir\\", Shell::Cmd), "\"C:\\my dir\\\\\"");
  // % expands even inside quotes; & | < > ^ ( ) act outside them: every one gets a caret, and so
  // does every quote, so that cmd sees no quoted part and removes exactly the carets.
  EXPECT_EQ(quote_arg("C:\\a%PATH%b", Shell::Cmd), "^\"C:\\a^%PATH^%b^\"");
  EXPECT_EQ(quote_arg("a&b", Shell::Cmd), "^\"a^&b^\"");
  EXPECT_EQ(quote_arg("C:\\x (86)", Shell::Cmd), "^\"C:\\x ^(86^)^\"");
  EXPECT_EQ(quote_arg("a\"b", Shell::Cmd), "^\"a\\^\"b^\"");
  EXPECT_EQ(quote_arg("", Shell::Cmd), "\"\"");
  EXPECT_EQ(command_line({"C:\\Program Files\\cudnn-install.exe", "--rollback"}, Shell::Cmd),
            "\"C:\\Program Files\\cudnn-install.exe\" --rollback");
}
