// The name grammar must answer every string with a value or an error, never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cudnn_install/archive_name.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view name(reinterpret_cast<const char*>(data), size);
  auto parsed = cudnn_install::parse_archive_name(name);
  if (parsed) {
    (void)parsed->version.number();
    (void)parsed->version.to_string();
  }
  return 0;
}
