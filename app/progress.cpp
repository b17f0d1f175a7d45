#include "progress.hpp"
#include "cli.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace cudnn_install::cli {

ProgressBar::ProgressBar(const Options& options)
    : enabled_(options.verbosity != Verbosity::Quiet && options.format == Format::Text && is_terminal(2)) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputs("\n", stderr);
}

ProgressFn ProgressBar::callback() {
  if (!enabled_) return {};
  return [this](const Progress& p) { draw(p, p.files_done == p.files_total); };
}

void ProgressBar::draw(const Progress& p, bool force) {
  auto now = std::chrono::steady_clock::now();
  if (!force && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  double fraction = p.bytes_total ? static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total) : 1.0;
  int filled = static_cast<int>(fraction * 30);
  std::string bar = std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(30 - filled), '.');
  std::fprintf(stderr, "\r[%s] %3.0f%%  %zu/%zu files  %.1f/%.1f MiB ", bar.c_str(), fraction * 100, p.files_done,
               p.files_total, static_cast<double>(p.bytes_done) / 1048576.0, static_cast<double>(p.bytes_total) / 1048576.0);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace cudnn_install::cli
