// Text in this program is UTF-8 on every platform: command-line arguments, environment values,
// state files, messages. On Windows, std::filesystem::path(std::string) reads a narrow string in
// the C runtime's code page (libstdc++ on msvcrt: byte by byte), while path::string() writes
// UTF-8; so a path made from text goes through utf8_path, and text is read through these
// functions, never through argv or getenv (the ANSI code page turns letters it lacks into '?').
#pragma once
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnn_install {

inline std::filesystem::path utf8_path(std::string_view text) {
  return std::filesystem::path(std::u8string_view(reinterpret_cast<const char8_t*>(text.data()), text.size()));
}

inline std::string utf8_text(const std::filesystem::path& path) {
  auto text = path.u8string();
  return std::string(text.begin(), text.end());
}

// An environment variable's value as UTF-8; nullopt when it is unset or empty.
std::optional<std::string> environment_variable(const char* name);

// This process's command-line arguments as UTF-8 (Windows: from GetCommandLineW; argv is in the
// ANSI code page there). Elsewhere argv as it is.
std::vector<std::string> command_line_arguments(int argc, char** argv);

// How many leading bytes of `text` are whole UTF-8 sequences: all of it, but for a sequence cut
// off at the end (its lead byte and fewer continuation bytes than it announces). Bytes that are not
// UTF-8 at all count as whole (they are shown as U+FFFD), so nothing waits for ever.
std::size_t whole_utf8_prefix(std::string_view text);

// While it lives, a Windows console shows this process's UTF-8 output as UTF-8: its output code
// page is set to CP_UTF8 (for writers that use the console's code page, as spdlog's does), and
// std::cout, std::cerr and std::clog, where they are a console, write through WriteConsoleW (the C
// runtime's text-mode write may convert the bytes once more from another code page: Wine's msvcrt
// does). Both are put back after. Without a console, and elsewhere, it does nothing. Without it
// "C:\Users\José" is printed as "JosÃ©", and a printed command pasted back fails.
class Utf8Console {
 public:
  Utf8Console();
  ~Utf8Console();  // NOLINT(performance-trivially-destructible): puts the console back on Windows
  Utf8Console(const Utf8Console&) = delete;
  Utf8Console& operator=(const Utf8Console&) = delete;

 private:
  struct Streams;                 // the console streams' buffers and the ones they replaced (Windows)
  unsigned saved_code_page_ = 0;  // 0: nothing to put back
  std::unique_ptr<Streams> streams_;
};

}  // namespace cudnn_install
