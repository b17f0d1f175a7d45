// Test helper: loads the DLL named on the command line and keeps it loaded until its standard
// input closes, as a running Python with cuDNN loaded would. Prints "loaded" once it holds it.
#include <windows.h>

#include <cstdio>

int wmain(int argc, wchar_t** argv) {
  if (argc != 2) return 2;
  if (!LoadLibraryExW(argv[1], nullptr, LOAD_WITH_ALTERED_SEARCH_PATH)) {
    std::printf("cannot load: error %lu\n", GetLastError());
    return 1;
  }
  std::printf("loaded\n");
  std::fflush(stdout);
  char buf[16];
  while (std::fread(buf, 1, sizeof buf, stdin) > 0) {
  }
  return 0;
}
