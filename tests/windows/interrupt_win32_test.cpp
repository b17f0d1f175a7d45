// The Windows console control handler (interrupt_win32.cpp): Ctrl-C and Ctrl-Break are recorded,
// not acted on, and the process goes on to roll back; a new set of handlers starts with nothing.
#include <gtest/gtest.h>
#include <windows.h>

#include <chrono>
#include <thread>

#include "cudnn_install/interrupt.hpp"

using namespace cudnn_install;

namespace {

// Windows calls the handler on a thread of its own: wait for it (bounded), without timing anything.
Interruption wait_for_event(Interrupts& interrupts) {
  for (int i = 0; i < 2000 && interrupts.raised(Checkpoint::Stage) == Interruption::None; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return interrupts.raised(Checkpoint::Stage);
}

}  // namespace

TEST(Win32Interrupts, CtrlBreakIsRecordedAndTheProcessGoesOn) {
  auto interrupts = catch_interrupts();
  EXPECT_EQ(interrupts->raised(Checkpoint::Stage), Interruption::None);
  if (!GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, 0))
    GTEST_SKIP() << "no console to send Ctrl-Break to (error " << GetLastError() << ")";
  EXPECT_EQ(wait_for_event(*interrupts), Interruption::Interrupt);  // and this test is still running
  interrupts.reset();
  auto again = catch_interrupts();
  EXPECT_EQ(again->raised(Checkpoint::Stage), Interruption::None);
}

TEST(Win32Interrupts, TheExitCodesAreThePosixOnes) {
  EXPECT_EQ(exit_code_for(error_code_for(Interruption::Interrupt)), ExitCode::Interrupted);
  EXPECT_EQ(exit_code_for(error_code_for(Interruption::Terminate)), ExitCode::Terminated);
  EXPECT_EQ(static_cast<int>(ExitCode::Interrupted), 130);
  EXPECT_EQ(static_cast<int>(ExitCode::Terminated), 143);
}
