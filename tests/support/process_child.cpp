// Test helper for the process runner (tests/process_test.cpp): a child that does one thing the
// runner must cope with, chosen by its first argument.
//   args A B ...     writes each argument (UTF-8) followed by a NUL byte to stdout
//   flood N          writes N bytes to stderr, then N to stdout, then "end" to stderr: a parent
//                    that reads one pipe to its end before the other blocks with this child
//   sleep MS         writes "started" to stdout, then sleeps
//   stdin            writes the number of bytes it could read from stdin
//   exit N           exits with status N
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <windows.h>
#endif

namespace {

// The byte at `i` of a flood: a pattern, so that a lost or repeated chunk shows.
char flood_byte(std::size_t i, char base) { return static_cast<char>(base + i % 26); }

void write_flood(std::FILE* to, std::size_t n, char base) {
  std::string chunk;
  for (std::size_t done = 0; done < n; done += chunk.size()) {
    chunk.clear();
    for (std::size_t i = done; i < n && chunk.size() < 4096; ++i) chunk.push_back(flood_byte(i, base));
    std::fwrite(chunk.data(), 1, chunk.size(), to);
  }
  std::fflush(to);
}

int run(const std::vector<std::string>& args) {
  if (args.size() < 2) return 100;
  const std::string& mode = args[1];
  if (mode == "args") {
    for (std::size_t i = 2; i < args.size(); ++i) std::fwrite(args[i].c_str(), 1, args[i].size() + 1, stdout);
    return 0;
  }
  if (mode == "flood" && args.size() == 3) {
    std::size_t n = std::stoul(args[2]);
    write_flood(stderr, n, 'A');
    write_flood(stdout, n, 'a');
    std::fputs("end", stderr);
    return 0;
  }
  if (mode == "sleep" && args.size() == 3) {
    std::fputs("started", stdout);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::stol(args[2])));
    return 0;
  }
  if (mode == "stdin") {
    std::size_t n = 0;
    char buffer[256];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, stdin)) > 0;) n += got;
    std::printf("%zu", n);
    return 0;
  }
  if (mode == "exit" && args.size() == 3) return std::atoi(args[2].c_str());
  return 101;
}

}  // namespace

#ifdef _WIN32
// wmain: the arguments as the runner quoted them, decoded by the C runtime, then made UTF-8.
int wmain(int argc, wchar_t** argv) {
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, nullptr, 0, nullptr, nullptr);
    std::string utf8(static_cast<std::size_t>(n), '\0');
    WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, utf8.data(), n, nullptr, nullptr);
    utf8.resize(static_cast<std::size_t>(n > 0 ? n - 1 : 0));
    args.push_back(utf8);
  }
  return run(args);
}
#else
int main(int argc, char** argv) { return run(std::vector<std::string>(argv, argv + argc)); }
#endif
