// What the platform handlers share: the names in messages and the check the work makes.
#include "cudnn_install/interrupt.hpp"

namespace cudnn_install {

std::string describe(Interruption interruption) {
  switch (interruption) {
    case Interruption::Interrupt:
      return "an interrupt (SIGINT, Ctrl-C)";
    case Interruption::Terminate:
      return "a request to terminate (SIGTERM, or the console closing)";
    case Interruption::Hangup:
      return "a hangup (SIGHUP)";
    case Interruption::None:
      break;
  }
  return "nothing";
}

ErrorCode error_code_for(Interruption interruption) {
  switch (interruption) {
    case Interruption::Terminate:
      return ErrorCode::Terminated;
    case Interruption::Hangup:
      return ErrorCode::HungUp;
    case Interruption::Interrupt:
    case Interruption::None:
      break;
  }
  return ErrorCode::Interrupted;
}

bool is_interruption(ErrorCode code) {
  return code == ErrorCode::Interrupted || code == ErrorCode::Terminated || code == ErrorCode::HungUp;
}

const char* describe(Checkpoint at) {
  switch (at) {
    case Checkpoint::Spool:
      return "while reading the archive";
    case Checkpoint::Prompt:
      return "at the prompt";
    case Checkpoint::Start:
      return "before the install began";
    case Checkpoint::Stage:
      return "while copying the new files";
    case Checkpoint::Swap:
      return "while moving the new files into place";
    case Checkpoint::Commit:
      return "before the install was committed";
    case Checkpoint::Undo:
      return "while a transaction was undone";
    case Checkpoint::NextUndo:
      return "before undoing the next transaction";
  }
  return "";
}

Result<void> stop_if_interrupted(Interrupts* interrupts, Checkpoint at) {
  if (!interrupts) return {};
  Interruption raised = interrupts->raised(at);
  if (raised == Interruption::None) return {};
  return fail(error_code_for(raised), "stopped by " + describe(raised) + " " + describe(at));
}

}  // namespace cudnn_install
