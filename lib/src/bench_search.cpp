// The search of one configuration, the same for every tier: each candidate is timed back to back
// on the timing data; the fastest few are re-timed with the full counts, checked in that order
// against the CPU reference, and the fastest that passes is timed by every method.
#include <algorithm>
#include <chrono>
#include <type_traits>

#include "bench_api.hpp"

namespace cudnn_install::gpu {
namespace {

// A candidate whose first timed execution is this much slower than the best back-to-back median
// so far is not timed further: the single execution also pays the host's per-call cost, so the
// margin is wide, and the slack keeps tiny layers (a few microseconds) from being cut on noise.
constexpr double kAbandonFactor = 4.0;
constexpr double kAbandonSlackMs = 0.05;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Search::Search(const Gpu& gpu, const BenchOptions& options, SearchStats& stats)
    : gpu_(gpu), options_(options), stats_(stats), start_(std::chrono::steady_clock::now()) {}

void Search::note_source(const std::string& source) {
  ++stats_.proposed;
  for (auto& [name, count] : stats_.sources)
    if (name == source) {
      ++count;
      return;
    }
  stats_.sources.emplace_back(source, 1);
}

void Search::count_failed(const std::string& source) {
  note_source(source);
  ++stats_.failed;
}

void Search::add(Candidate candidate) {
  note_source(candidate.source);
  const Driver& cu = gpu_.libs.cu;
  double once = time_once(cu, gpu_.stream, candidate.run);
  if (once < 0) {
    ++stats_.failed;
    return;
  }
  if (best_ms_ > 0 && once > kAbandonFactor * best_ms_ + kAbandonSlackMs) {
    ++stats_.abandoned;
    return;
  }
  TimingCounts counts = options_.search_timing;
  if (best_ms_ < 0) counts.warmup_ms = options_.timing.warmup_ms;  // the first: bring the GPU to its sustained clock
  Timing t = measure(cu, gpu_.stream, TimingMethod::BackToBack, counts, candidate.run);
  if (!t.measured) {
    ++stats_.failed;
    return;
  }
  ++stats_.timed;
  candidate.search_ms = t.ms.median;
  if (best_ms_ < 0 || candidate.search_ms < best_ms_) best_ms_ = candidate.search_ms;
  candidates_.push_back(std::move(candidate));
}

// Pointers to the `n` fastest of `all` (const or not), fastest first.
template <class Candidates>
auto fastest_of(Candidates& all, size_t n) {
  using C = std::remove_reference_t<decltype(all.front())>;
  std::vector<C*> order;
  for (auto& c : all) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](C* a, C* b) { return a->search_ms < b->search_ms; });
  if (order.size() > n) order.resize(n);
  return order;
}

std::vector<const Candidate*> Search::fastest(size_t n) const { return fastest_of(candidates_, n); }

// The finalists, re-timed back to back with the full counts, fastest first.
std::vector<Candidate*> Search::rank_finalists() {
  auto finalists = fastest_of(candidates_, static_cast<size_t>(std::max(1, options_.finalists)));
  TimingCounts counts = options_.timing;
  counts.warmup_ms = 0;  // the search has just kept the GPU busy
  for (Candidate* c : finalists)
    c->ranked = measure(gpu_.libs.cu, gpu_.stream, TimingMethod::BackToBack, counts, c->run);
  std::stable_sort(finalists.begin(), finalists.end(), [](const Candidate* a, const Candidate* b) {
    if (a->ranked.measured != b->ranked.measured) return a->ranked.measured;
    return a->ranked.ms.median < b->ranked.ms.median;
  });
  return finalists;
}

// Checks the finalists in order; the first that passes, else the fastest (reported as wrong).
Candidate* Search::check_finalists(const std::vector<Candidate*>& finalists, const CheckHooks& hooks,
                                   BenchResult& out) {
  Candidate* wrong = nullptr;
  BenchResult wrong_result = out;
  for (Candidate* c : finalists) {
    if (!c->ranked.measured) continue;
    BenchResult checked = out;
    hooks.check(c->run, checked);
    if (checked.correct) {
      out = std::move(checked);
      return c;
    }
    ++stats_.rejected;
    if (!wrong) {
      wrong = c;
      wrong_result = std::move(checked);
    }
  }
  out = std::move(wrong_result);
  return wrong;
}

void Search::finish(const CheckHooks& hooks, BenchResult& out) {
  if (candidates_.empty()) {
    out.error = "no candidate could run (" + std::to_string(stats_.proposed) + " proposed, " +
                std::to_string(stats_.failed) + " failed)";
    return;
  }
  auto finalists = rank_finalists();
  if (!hooks.use_data(TimingData::Exact)) {
    out.error = "the check's inputs could not be copied to the GPU";
    return;
  }
  Candidate* pick = check_finalists(finalists, hooks, out);
  stats_.seconds = seconds_since(start_);
  if (!pick) {
    out.error = "every finalist failed when re-timed";
    return;
  }
  if (!hooks.use_data(options_.timing_data)) {
    out.error = "the timing inputs could not be copied to the GPU";
    return;
  }
  out.algorithm = pick->label;
  const Driver& cu = gpu_.libs.cu;
  out.kernel_graph = measure(cu, gpu_.stream, TimingMethod::CudaGraph, options_.timing, pick->run);
  out.kernel_back_to_back = measure(cu, gpu_.stream, TimingMethod::BackToBack, options_.timing, pick->run);
  out.single_call = measure(cu, gpu_.stream, TimingMethod::SingleCall, options_.timing, pick->run);
  if (!out.kernel().measured) out.error = "the chosen configuration failed when re-timed: " + out.kernel().note;
}

}  // namespace cudnn_install::gpu
