// A ProcessFinder that answers what the test scripted (Restart Manager and /proc stand-in).
#pragma once
#include "cudnn_install/locks.hpp"

namespace cudnn_install::test {

class FakeProcessFinder final : public ProcessFinder {
 public:
  explicit FakeProcessFinder(Result<HolderScan> answer) : answer_(std::move(answer)) {}
  Result<HolderScan> find_holders(const std::vector<WatchedFile>& files) override {
    asked = files;
    return answer_;
  }
  std::vector<WatchedFile> asked;

 private:
  Result<HolderScan> answer_;
};

}  // namespace cudnn_install::test
