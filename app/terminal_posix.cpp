// Whether a standard stream is the user's terminal (the prompt needs one).
#include <unistd.h>

#include "cli.hpp"

namespace cudnn_install::cli {

bool is_terminal(int fd) { return ::isatty(fd) != 0; }

}  // namespace cudnn_install::cli
