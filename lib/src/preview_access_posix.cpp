// may_write on POSIX: the effective user's rights, as open(2) and rename(2) check them.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "cudnn_install/preview.hpp"

namespace cudnn_install {

bool may_write(const std::filesystem::path& path) {
  return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0 || errno == ENOENT;
}

}  // namespace cudnn_install
