#include "base/util.hpp"

#include <zlib.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <memory>

#ifdef _WIN32
#include <process.h>
#else
#include <unistd.h>
#endif

namespace cudnn_install::util {

#ifdef _WIN32
long process_id() { return static_cast<long>(_getpid()); }
std::tm utc_time(std::time_t t) {
  std::tm tm{};
  gmtime_s(&tm, &t);
  return tm;
}
#else
long process_id() { return static_cast<long>(::getpid()); }
std::tm utc_time(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  return tm;
}
#endif

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm = utc_time(now);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::uint32_t> file_crc32(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  constexpr std::size_t kChunk = 1 << 20;
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);  // not zeroed: it is read into at once
  uLong crc = crc32(0, nullptr, 0);
  while (in) {
    in.read(buf.get(), static_cast<std::streamsize>(kChunk));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(buf.get()), static_cast<uInt>(in.gcount()));
  }
  return in.eof() ? std::optional(static_cast<std::uint32_t>(crc)) : std::nullopt;
}

std::string human_bytes(std::uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return buf;
}

// The number in the first line `#define NAME 9` (or `# define NAME (9)`) of a C header; a line
// scan rather than std::regex, whose compilation was most of a reinstall's CPU time
// (bench/results/install-speed-2026-12-03c.md).
std::optional<int> define_value(std::string_view text, std::string_view name) {
  auto is_blank = [](char c) { return c == ' ' || c == '\t'; };
  auto skip_blanks = [&](std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    return s;
  };
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = skip_blanks(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (!line.starts_with('#')) continue;
    line = skip_blanks(line.substr(1));
    if (!line.starts_with("define") || line.size() == 6 || !is_blank(line[6])) continue;
    line = skip_blanks(line.substr(6));
    if (!line.starts_with(name) || line.size() == name.size() || !is_blank(line[name.size()])) continue;
    line = skip_blanks(line.substr(name.size()));
    if (line.starts_with('(')) line = skip_blanks(line.substr(1));
    int value = 0;
    auto [rest, error] = std::from_chars(line.data(), line.data() + line.size(), value);
    if (error == std::errc() && rest != line.data()) return value;
  }
  return std::nullopt;
}

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : bytes) hex += {digits[c >> 4], digits[c & 15]};
  return hex;
}

}  // namespace cudnn_install::util
