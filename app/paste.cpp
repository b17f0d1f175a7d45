// Commands printed for people to paste: this program by the name that finds it, then the
// arguments, quoted for the shell of this platform (shell_quote.hpp).
#include <string_view>

#include "cli.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/shell_quote.hpp"
#include "cudnn_install/txn.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install::cli {
namespace {

#ifdef _WIN32
constexpr char kPathSeparator = ';';
constexpr const char* kProgramFile = "cudnn-install.exe";
#else
constexpr char kPathSeparator = ':';
constexpr const char* kProgramFile = "cudnn-install";
#endif

// "cudnn-install" when that name on PATH is this very program, else its full path: a name that
// finds another copy, or none, would run something else than what printed the command.
std::string program_name() {
  std::filesystem::path self = current_executable();
  std::string path = environment_variable("PATH").value_or("");
  std::string_view rest = path;
  while (!rest.empty()) {
    auto end = rest.find(kPathSeparator);
    std::filesystem::path dir = utf8_path(rest.substr(0, end));
    rest = end == std::string_view::npos ? "" : rest.substr(end + 1);
    std::error_code ec;
    if (dir.empty() || !std::filesystem::exists(dir / kProgramFile, ec)) continue;
    return std::filesystem::equivalent(dir / kProgramFile, self, ec) ? "cudnn-install" : utf8_text(self);
  }
  return utf8_text(self);
}

}  // namespace

std::string command_to_paste(const std::vector<std::string>& args) {
  std::vector<std::string> argv{program_name()};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string line = command_line(argv, native_shell());
#ifdef _WIN32
  // PowerShell is the default terminal, but many still open cmd: its form too, where it differs.
  if (std::string cmd = command_line(argv, Shell::Cmd); cmd != line) line += "\n  (in cmd: " + cmd + ")";
#endif
  return line;
}

std::string path_arg(const std::filesystem::path& path) { return utf8_text(path); }

std::string rollback_to_paste(const std::filesystem::path& root) {
  return command_to_paste({"--rollback", "--cuda-root", path_arg(root)});
}

Error with_rollback_to_finish(Error error, const std::filesystem::path& root) {
  if (has_pending_journal(root)) error.message += "\nTo roll back: " + rollback_to_paste(root);
  return error;
}

}  // namespace cudnn_install::cli
