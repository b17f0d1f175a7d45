// Interrupts raised by a test instead of a signal: what the CLI's handlers would have recorded.
#pragma once
#include <atomic>
#include <mutex>
#include <optional>

#include "cudnn_install/interrupt.hpp"

namespace cudnn_install::test {

class FakeInterrupts final : public Interrupts {
 public:
  void raise(Interruption what) { raised_.store(what); }
  Interruption raised(Checkpoint at) override {
    Interruption now = raised_.load();
    if (now != Interruption::None) {
      std::lock_guard lock(mutex_);
      if (!seen_at_) seen_at_ = at;
    }
    return now;
  }
  // The checkpoint that first saw the raised interrupt.
  std::optional<Checkpoint> seen_at() {
    std::lock_guard lock(mutex_);
    return seen_at_;
  }

 private:
  std::atomic<Interruption> raised_{Interruption::None};
  std::mutex mutex_;
  std::optional<Checkpoint> seen_at_;
};

}  // namespace cudnn_install::test
