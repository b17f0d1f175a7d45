// Whether a standard stream is the user's console (the prompt needs one).
#include <io.h>
#include <windows.h>

#include "cli.hpp"

namespace cudnn_install::cli {

// A console, not only a character device: _isatty is true for NUL too (`cudnn-install ... < NUL`),
// which would make a prompt read end-of-file instead of refusing for want of a terminal.
bool is_terminal(int fd) {
  DWORD mode = 0;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): _get_osfhandle gives the HANDLE as an intptr_t
  return _isatty(fd) != 0 && GetConsoleMode(reinterpret_cast<HANDLE>(_get_osfhandle(fd)), &mode) != 0;
}

}  // namespace cudnn_install::cli
