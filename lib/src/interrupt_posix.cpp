// SIGINT, SIGTERM and SIGHUP recorded by a handler that only stores the signal in a lock-free
// atomic (async-signal-safe). Installed without SA_RESTART, so that a prompt waiting in read()
// returns at once and the CLI sees the signal there too.
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "cudnn_install/interrupt.hpp"

namespace cudnn_install {
namespace {

std::atomic<int> received_signal{0};  // the first signal since the handlers were installed
static_assert(std::atomic<int>::is_always_lock_free, "a signal handler may only touch a lock-free atomic");

extern "C" void record_signal(int sig) {
  int none = 0;
  received_signal.compare_exchange_strong(none, sig);
}

constexpr int kCaughtSignals[] = {SIGINT, SIGTERM, SIGHUP};

class PosixInterrupts final : public Interrupts {
 public:
  PosixInterrupts() {
    received_signal.store(0);
    struct sigaction action;
    std::memset(&action, 0, sizeof action);
    action.sa_handler = record_signal;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kCaughtSignals); ++i) sigaction(kCaughtSignals[i], &action, &saved_[i]);
  }
  ~PosixInterrupts() override {
    for (std::size_t i = 0; i < std::size(kCaughtSignals); ++i) sigaction(kCaughtSignals[i], &saved_[i], nullptr);
  }
  PosixInterrupts(const PosixInterrupts&) = delete;
  PosixInterrupts& operator=(const PosixInterrupts&) = delete;

  Interruption raised(Checkpoint) override {
    switch (received_signal.load()) {
      case SIGINT:
        return Interruption::Interrupt;
      case SIGTERM:
        return Interruption::Terminate;
      case SIGHUP:
        return Interruption::Hangup;
      default:
        return Interruption::None;
    }
  }

 private:
  struct sigaction saved_[std::size(kCaughtSignals)];
};

}  // namespace

std::unique_ptr<Interrupts> catch_interrupts() { return std::make_unique<PosixInterrupts>(); }

Interruption wait_for_input(Interrupts* interrupts, Checkpoint at) {
  constexpr int kSliceMs = 50;  // how late a signal that came just before poll() is noticed
  for (;;) {
    if (auto raised = interrupts ? interrupts->raised(at) : Interruption::None; raised != Interruption::None)
      return raised;
    pollfd input{STDIN_FILENO, POLLIN, 0};
    if (::poll(&input, 1, kSliceMs) > 0) return Interruption::None;  // readable, closed or in error: read() says
  }
}

}  // namespace cudnn_install
