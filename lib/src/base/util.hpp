// Small helpers shared by the library's sources (not part of the public API).
#pragma once
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace cudnn_install::util {

// Whole small file (headers, version files, manifests); nullopt if it cannot be read, is not a
// regular file (a FIFO would block the read for ever, /dev/zero never end it) or holds more than
// max_bytes.
inline constexpr std::uintmax_t kSmallFileLimit = std::uintmax_t{16} << 20;
inline std::optional<std::string> read_text_file(const std::filesystem::path& path,
                                                 std::uintmax_t max_bytes = kSmallFileLimit) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text;
  char chunk[1 << 14];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) return std::nullopt;
  }
  return text;
}

// The number `text` starts with ("9.19.0" -> 9; "1f:03" in base 16 -> 31) and where it ends;
// nullopt when it does not start with a digit or the number does not fit in T.
template <class T>
std::optional<std::pair<T, std::size_t>> leading_number(std::string_view text, int base = 10) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc{}) return std::nullopt;
  return std::pair{value, static_cast<std::size_t>(end - text.data())};
}
// The same, the number alone.
inline std::optional<int> leading_int(std::string_view text) {
  auto n = leading_number<int>(text);
  return n ? std::optional<int>(n->first) : std::nullopt;
}
// The unsigned number `text` starts with ("1234", "1234abc" -> 1234), as std::stoull reads it
// but without its exceptions or its wrap-around of "-1"; nullopt when it starts with no digit.
inline std::optional<std::uint64_t> leading_uint64(std::string_view text) {
  auto n = leading_number<std::uint64_t>(text);
  return n ? std::optional<std::uint64_t>(n->first) : std::nullopt;
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The calling process's ID, and broken-down UTC time (gmtime_r/gmtime_s: both thread-safe).
long process_id();
// Whether a process with this PID runs now (one that exists but is not ours counts too); this
// process's own PID is running. Defined with the platform's process code (base/process_*.cpp).
bool process_running(long pid);
std::tm utc_time(std::time_t t);
// Now, UTC, ISO 8601 to the second: "2026-12-02T18:06:23Z".
std::string utc_now();

// CRC-32 of a whole file, read in 1 MiB chunks; nullopt if it cannot be read.
std::optional<std::uint32_t> file_crc32(const std::filesystem::path& path);

// The number in the first line `#define NAME 9` (or `# define NAME (9)`) of a C header text.
std::optional<int> define_value(std::string_view text, std::string_view name);

// Lower-case hexadecimal, two digits a byte: digests, registry bytes in the journal.
std::string to_hex(std::string_view bytes);

// Human byte counts: "512 B", "3.4 MiB".
std::string human_bytes(std::uint64_t bytes);

}  // namespace cudnn_install::util
