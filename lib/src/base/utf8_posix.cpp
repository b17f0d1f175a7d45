// The environment and the command line on POSIX: already bytes, UTF-8 by convention.
#include <cstdlib>

#include "cudnn_install/utf8.hpp"

namespace cudnn_install {

std::optional<std::string> environment_variable(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::vector<std::string> command_line_arguments(int argc, char** argv) { return {argv, argv + argc}; }

struct Utf8Console::Streams {};
Utf8Console::Utf8Console() = default;
Utf8Console::~Utf8Console() = default;

}  // namespace cudnn_install
