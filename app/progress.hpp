// A one-line progress bar on stderr, only when stderr is a terminal and output is not quiet.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "cli.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {

// "label NN%" on one stderr line, redrawn when the percentage changes and ended at 100%; nothing
// unless text output goes to a terminal, nor for files smaller than min_bytes.
std::function<void(std::uint64_t, std::uint64_t)> percent_line(const Options& options, std::string label,
                                                               std::uint64_t min_bytes);

class ProgressBar {
 public:
  explicit ProgressBar(const Options& options);
  ~ProgressBar();
  ProgressFn callback();
  // Ends the bar's line (if it drew one), so that what follows starts on a line of its own.
  void end_line();

 private:
  void draw(const Progress& p, bool force);
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace cudnn_install::cli
