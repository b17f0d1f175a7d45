// Starts Wine's desktop process (explorer.exe /desktop) before the tests run. Wine starts it on
// the first window message, as a child of whichever process sends it, and that child keeps the
// sender's inherited handles: started from a test whose output ctest reads through a pipe, it holds
// the pipe open and the test never ends. scripts/test.sh runs this first with no pipes attached.
#include <windows.h>

int main() {
  DWORD_PTR result = 0;
  GetDesktopWindow();
  SendMessageTimeoutW(HWND_BROADCAST, WM_NULL, 0, 0, SMTO_ABORTIFHUNG, 2000, &result);
  return 0;
}
