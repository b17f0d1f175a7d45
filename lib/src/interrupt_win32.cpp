// Ctrl-C, Ctrl-Break and the console closing (or logoff, shutdown) recorded by a console control
// handler that only stores the event in a lock-free atomic. Windows runs the handler on a thread
// of its own and ends the process when a close, logoff or shutdown handler returns, so that handler
// waits: the main thread rolls back and exits (Windows ends the process after its own time limit
// otherwise, as it would have anyway).
#include <windows.h>

#include <atomic>

#include "base/win32_util.hpp"
#include "cudnn_install/interrupt.hpp"

namespace cudnn_install {
namespace {

std::atomic<int> received_event{0};  // Interruption, as an int: the first one since installed
static_assert(std::atomic<int>::is_always_lock_free, "a control handler only touches a lock-free atomic");

void record_event(Interruption what) {
  int none = 0;
  received_event.compare_exchange_strong(none, static_cast<int>(what));
}

BOOL WINAPI on_console_event(DWORD event) {
  switch (event) {
    case CTRL_C_EVENT:
    case CTRL_BREAK_EVENT:
      record_event(Interruption::Interrupt);
      return TRUE;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT:
      record_event(Interruption::Terminate);
      Sleep(INFINITE);  // returning would end the process before the rollback; its exit ends this thread
      return TRUE;
    default:
      return FALSE;
  }
}

class Win32Interrupts final : public Interrupts {
 public:
  Win32Interrupts() {
    received_event.store(0);
    SetConsoleCtrlHandler(on_console_event, TRUE);
  }
  ~Win32Interrupts() override { SetConsoleCtrlHandler(on_console_event, FALSE); }
  Win32Interrupts(const Win32Interrupts&) = delete;
  Win32Interrupts& operator=(const Win32Interrupts&) = delete;

  Interruption raised(Checkpoint) override { return static_cast<Interruption>(received_event.load()); }
};

}  // namespace

std::unique_ptr<Interrupts> catch_interrupts() { return std::make_unique<Win32Interrupts>(); }

// A console input handle is signalled while it holds events (keys, but also focus or mouse events;
// the read that follows then waits for Enter, and Ctrl-C still ends that read). A pipe or a file
// is not waited on: a read from it does not hang on a signal that came earlier.
Interruption wait_for_input(Interrupts* interrupts, Checkpoint at) {
  constexpr DWORD kSliceMs = 50;
  HANDLE input = win32::std_console(STD_INPUT_HANDLE);  // nullptr: not a console
  for (;;) {
    if (auto raised = interrupts ? interrupts->raised(at) : Interruption::None; raised != Interruption::None)
      return raised;
    if (!input || WaitForSingleObject(input, kSliceMs) != WAIT_TIMEOUT) return Interruption::None;
  }
}

}  // namespace cudnn_install
