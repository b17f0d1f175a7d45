#include "util.hpp"

#include <cstdio>

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
