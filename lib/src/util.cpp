#include "util.hpp"

#include <zlib.h>

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
  while (value >= 1024 && unit < 4) { value /= 1024; ++unit; }
  char buf[32];
  std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return buf;
}

}  // namespace cudnn_install::util
