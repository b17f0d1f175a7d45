#include "progress.hpp"
#include "cli.hpp"

#include <fmt/format.h>

#include <cstdio>

namespace cudnn_install::cli {

std::function<void(std::uint64_t, std::uint64_t)> percent_line(const Options& options, std::string label,
                                                               std::uint64_t min_bytes) {
  if (options.verbosity == Verbosity::Quiet || options.format != Format::Text || !is_terminal(2)) return {};
  return [label = std::move(label), min_bytes, shown = -1](std::uint64_t done, std::uint64_t total) mutable {
    if (total < min_bytes) return;
    int percent = static_cast<int>(done * 100 / total);
    if (percent == shown) return;
    shown = percent;
    std::fprintf(stderr, "\r%-8s %3d%%%s", label.c_str(), percent, done >= total ? "\n" : "");
    std::fflush(stderr);
  };
}

ProgressBar::ProgressBar(const Options& options)
    : enabled_(options.verbosity != Verbosity::Quiet && options.format == Format::Text && is_terminal(2)) {}

ProgressBar::~ProgressBar() { end_line(); }

void ProgressBar::end_line() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
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
               p.files_total, static_cast<double>(p.bytes_done) / 1048576.0,
               static_cast<double>(p.bytes_total) / 1048576.0);
  std::fflush(stderr);
  drawn_ = true;
}

}  // namespace cudnn_install::cli
