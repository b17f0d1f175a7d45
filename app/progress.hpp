// A one-line progress bar on stderr, only when stderr is a terminal and output is not quiet.
#pragma once
#include <chrono>

#include "cli.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {

class ProgressBar {
 public:
  explicit ProgressBar(const Options& options);
  ~ProgressBar();
  ProgressFn callback();

 private:
  void draw(const Progress& p, bool force);
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace cudnn_install::cli
