// Commands printed for people to paste ("undo with: ...", "export LD_LIBRARY_PATH=..."), quoted
// for the shell they will be pasted into, so that a toolkit under "C:\Program Files\..." or a
// path with quotes, '$', '%' or non-ASCII letters still gives the command that was meant.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace cudnn_install {

enum class Shell {
  Posix,       // sh, bash, zsh: '...' with ' written as '\''
  PowerShell,  // '...' with ' (and its typographic forms) doubled; a quoted program is run with &
  Cmd,         // cmd.exe: "..." as the C runtime splits arguments, with % and cmd's own signs ^-escaped
};

// The shell people use on this platform: POSIX sh on Linux, PowerShell on Windows.
Shell native_shell();

// One word (UTF-8), quoted only when it needs to be.
std::string quote_arg(std::string_view arg, Shell shell);
// A whole command: the program and its arguments, each quoted as needed.
std::string command_line(const std::vector<std::string>& argv, Shell shell);

// The line that sets an environment variable to VALUE in that shell: `export VAR='...'`,
// `$env:VAR = '...'` (PowerShell), `set VAR=...` (cmd, its signs ^-escaped).
std::string set_variable_line(std::string_view var, std::string_view value, Shell shell);

// POSIX sh: `export VAR=DIR` followed by VAR's value now, if any ("${VAR:+:$VAR}", quoted so
// that no shell splits it): the line that puts DIR first on a search path such as LD_LIBRARY_PATH.
std::string export_prepend_line(std::string_view var, std::string_view dir);

}  // namespace cudnn_install
