// Signals that ask the tool to stop: SIGINT, SIGTERM, SIGHUP (POSIX); Ctrl-C, Ctrl-Break and the
// console closing (Windows). The handler only records the signal in an atomic flag; the work that
// may be interrupted (spooling, staging, the swap, the prompt) looks at the flag between its steps
// and between copy chunks, stops, and rolls back what it did before the process exits with the
// signal's exit code (ExitCode::Interrupted, Terminated, HungUp).
#pragma once
#include <memory>
#include <string>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

enum class Interruption { None, Interrupt, Terminate, Hangup };

// Where the flag is looked at: named in the message, and where the CLI's test hook pauses.
// Undo (between the steps of a rollback) is only looked at, never obeyed: a rollback that has begun
// always finishes; NextUndo is where --rollback and uninstall stop before undoing (another) one.
enum class Checkpoint { Spool, Prompt, Start, Stage, Swap, Commit, Undo, NextUndo };

class Interrupts {
 public:
  virtual ~Interrupts() = default;
  // The first signal received, or None. Called from worker threads too (a zip's staging).
  virtual Interruption raised(Checkpoint at) = 0;
};

// The process's own handlers, installed while the returned object lives (interrupt_posix.cpp,
// interrupt_win32.cpp); the previous handlers are put back when it is destroyed.
std::unique_ptr<Interrupts> catch_interrupts();

// "SIGINT (Ctrl-C)", "SIGTERM", ...: how a message names what was received.
std::string describe(Interruption interruption);
ErrorCode error_code_for(Interruption interruption);  // Interrupted, Terminated or HungUp
// Whether an error is one of those: a signal stopped the work.
bool is_interruption(ErrorCode code);
const char* describe(Checkpoint at);  // "while copying the new files", ...

// An error (ErrorCode::Interrupted, Terminated or HungUp) when a signal was received; nothing to
// look at (nullptr) is never interrupted.
Result<void> stop_if_interrupted(Interrupts* interrupts, Checkpoint at);

// Waits until standard input has something to read (or is closed), or until a signal has been
// received; says which. A prompt waits here before it reads: a signal that came between printing
// the question and a blocking read would otherwise leave the read waiting for ever.
Interruption wait_for_input(Interrupts* interrupts, Checkpoint at);

}  // namespace cudnn_install
