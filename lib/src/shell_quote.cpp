// Quoting rules per shell; see shell_quote.hpp.
#include "cudnn_install/shell_quote.hpp"

#include <algorithm>

namespace cudnn_install {
namespace {

bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// Characters that mean nothing to the shell anywhere in a word (ASCII only: a non-ASCII letter is
// quoted, since a terminal's encoding or PowerShell's typographic quotes could otherwise bite).
bool plain(std::string_view arg, std::string_view extra) {
  return !arg.empty() && std::all_of(arg.begin(), arg.end(),
                                     [&](char c) { return is_alnum(c) || extra.find(c) != std::string_view::npos; });
}

std::string posix_quote(std::string_view arg) {
  if (plain(arg, "_-./:=+,@%")) return std::string(arg);
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// PowerShell reads U+2018..U+201B as single quotes too: each is doubled like '.
bool typographic_single_quote(std::string_view s, std::size_t i) {
  return i + 2 < s.size() && static_cast<unsigned char>(s[i]) == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
         static_cast<unsigned char>(s[i + 2]) >= 0x98 && static_cast<unsigned char>(s[i + 2]) <= 0x9B;
}

std::string powershell_quote(std::string_view arg) {
  if (plain(arg, "_-./:\\=+")) return std::string(arg);
  std::string out = "'";
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (arg[i] == '\'') {
      out += "''";
    } else if (typographic_single_quote(arg, i)) {
      out += std::string(arg.substr(i, 3)) + std::string(arg.substr(i, 3));
      i += 2;
    } else {
      out += arg[i];
    }
  }
  return out + "'";
}

// As the C runtime (CommandLineToArgvW) splits a command line: "..." with the backslashes
// before a quote, and the quote itself, escaped.
std::string crt_quote(std::string_view arg) {
  std::string out = "\"";
  std::size_t backslashes = 0;
  for (char c : arg) {
    if (c == '\\') {
      ++backslashes;
      continue;
    }
    out.append(c == '"' ? backslashes * 2 + 1 : backslashes, '\\');
    backslashes = 0;
    out += c;
  }
  out.append(backslashes * 2, '\\');
  return out + "\"";
}

// cmd.exe expands %NAME% even inside quotes, and reads & | < > ^ ( ) outside them. A caret before
// each of those (and before every quote, so that cmd sees no quoted part at all) leaves the C
// runtime's string to the program exactly; "^%" also keeps %NAME% from matching a variable.
std::string cmd_quote(std::string_view arg) {
  if (plain(arg, "_-./:\\=+,")) return std::string(arg);
  std::string crt = crt_quote(arg), out;
  bool escape_all = arg.find_first_of("\"%!^&|<>()") != std::string_view::npos;
  if (!escape_all) return crt;
  for (char c : crt) {
    if (std::string_view("\"%!^&|<>()").find(c) != std::string_view::npos) out += '^';
    out += c;
  }
  return out;
}

}  // namespace

Shell native_shell() {
#ifdef _WIN32
  return Shell::PowerShell;
#else
  return Shell::Posix;
#endif
}

std::string quote_arg(std::string_view arg, Shell shell) {
  switch (shell) {
    case Shell::Posix:
      return posix_quote(arg);
    case Shell::PowerShell:
      return powershell_quote(arg);
    case Shell::Cmd:
      return cmd_quote(arg);
  }
  return std::string(arg);
}

std::string command_line(const std::vector<std::string>& argv, Shell shell) {
  std::string out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string word = quote_arg(argv[i], shell);
    // PowerShell takes a quoted first word for a string, not a command: & runs it.
    if (i == 0 && shell == Shell::PowerShell && word != argv[i]) word.insert(0, "& ");
    if (i) out += ' ';
    out += word;
  }
  return out;
}

std::string set_variable_line(std::string_view var, std::string_view value, Shell shell) {
  std::string v(var);
  switch (shell) {
    case Shell::Posix:
      return "export " + v + "=" + posix_quote(value);
    case Shell::PowerShell: {
      // An unquoted value would be read as a command: quote it even when plain.
      std::string quoted = powershell_quote(value);
      return "$env:" + v + " = " + (quoted.starts_with('\'') ? quoted : "'" + quoted + "'");
    }
    case Shell::Cmd: {
      // `set` takes the rest of the line as it is, spaces included; only cmd's own signs need a caret.
      std::string line = "set " + v + "=";
      for (char c : value) {
        if (std::string_view("\"%!^&|<>()").find(c) != std::string_view::npos) line += '^';
        line += c;
      }
      return line;
    }
  }
  return v + "=" + std::string(value);
}

std::string export_prepend_line(std::string_view var, std::string_view dir) {
  std::string v(var);
  return set_variable_line(var, dir, Shell::Posix) + "\"${" + v + ":+:$" + v + "}\"";
}

}  // namespace cudnn_install
