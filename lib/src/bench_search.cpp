// The search of one configuration, the same for every tier: each candidate is timed back to back
// on the timing data; the fastest few (those within a few percent of the best) are checked against
// the CPU reference, those that pass are re-timed with the full counts in turn (the search's short
// timings cannot tell configs of equal speed apart; see measure_in_turn), and the best median is
// timed by every method.
#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <thread>
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

// The check's fields of a result.
void copy_check_of(const BenchResult& from, BenchResult& to) {
  to.checked_points = from.checked_points;
  to.max_error = from.max_error;
  to.tolerance = from.tolerance;
  to.correct = from.correct;
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
  order.reserve(all.size());
  for (auto& c : all) order.push_back(&c);
  std::stable_sort(order.begin(), order.end(), [](C* a, C* b) { return a->search_ms < b->search_ms; });
  if (order.size() > n) order.resize(n);
  return order;
}

std::vector<const Candidate*> Search::fastest(size_t n) const { return fastest_of(candidates_, n); }

// The finalists, checked in search order (those that fail the check are not timed further):
//  - the fastest candidates within the margin of the best search median, at most options_.finalists;
//    when none within the margin passes, the search goes on down the list (as far again) for the
//    fastest that does; when none at all does, the fastest is the one finalist, reported as wrong;
//  - then the fastest within the margin of each source not yet among them. The knob sweep's
//    neighbours of one config are often all within the short search's noise and would otherwise
//    crowd out the heuristics' own configs, among which a peer such as PyTorch's cudnn.benchmark
//    chooses: this way the full timing decides between them too.
std::vector<Search::Checked> Search::check_finalists(const CheckHooks& hooks, const BenchConfig& config) {
  size_t wanted = static_cast<size_t>(std::max(1, options_.finalists));
  auto order = fastest_of(candidates_, candidates_.size());
  double limit = order.front()->search_ms * (1 + options_.finalist_margin);
  std::vector<Checked> passed;
  std::optional<Checked> first_wrong;
  std::set<std::string> sources_checked;
  auto check = [&](Candidate* c) {
    sources_checked.insert(c->source);
    Checked checked{c, {}};
    checked.check.config = config;
    hooks.check(c->run, checked.check);
    if (checked.check.correct) {
      passed.push_back(std::move(checked));
      return;
    }
    ++stats_.rejected;
    if (!first_wrong) first_wrong = std::move(checked);
  };
  size_t next = 0;
  for (; next < order.size() && next < 2 * wanted; ++next) {
    if (passed.size() == wanted || (!passed.empty() && order[next]->search_ms > limit)) break;
    check(order[next]);
  }
  for (; next < order.size() && order[next]->search_ms <= limit; ++next)
    if (!sources_checked.contains(order[next]->source)) check(order[next]);
  if (passed.empty() && first_wrong) passed.push_back(std::move(*first_wrong));
  return passed;
}

// Times the finalists in turn with the full counts; records them; the best kernel median wins.
const Search::Checked* Search::time_finalists(const std::vector<Checked>& finalists) {
  std::vector<Execute> runs;
  runs.reserve(finalists.size());
  for (const Checked& f : finalists) runs.push_back(f.candidate->run);
  auto timings = measure_in_turn(gpu_.libs.cu, gpu_.stream, options_.timing, runs);
  const Checked* best = nullptr;
  size_t best_index = 0;
  for (size_t i = 0; i < finalists.size(); ++i) {
    const Candidate& c = *finalists[i].candidate;
    Finalist f{c.label, c.source, c.search_ms, timings[i].graph, timings[i].back_to_back};
    const Timing& k = f.kernel();
    if (k.measured && (!best || k.ms.median < stats_.finalists[best_index].kernel().ms.median)) {
      best = &finalists[i];
      best_index = i;
    }
    stats_.finalists.push_back(std::move(f));
  }
  if (best) stats_.finalists[best_index].picked = true;
  return best;
}

void Search::finish(const CheckHooks& hooks, BenchResult& out) {
  if (candidates_.empty()) {
    out.error = "no candidate could run (" + std::to_string(stats_.proposed) + " proposed, " +
                std::to_string(stats_.failed) + " failed)";
    return;
  }
  auto final_start = std::chrono::steady_clock::now();
  if (!hooks.use_data(TimingData::Exact)) {
    out.error = "the check's inputs could not be copied to the GPU";
    return;
  }
  auto finalists = check_finalists(hooks, out.config);
  if (!hooks.use_data(options_.timing_data)) {
    out.error = "the timing inputs could not be copied to the GPU";
    return;
  }
  if (!finalists.empty())  // a failure here shows again, with its note, in the finalists' timing
    keep_busy(gpu_.libs.cu, gpu_.stream, options_.settle_ms, options_.timing.per_batch,
              finalists.front().candidate->run);
  const Checked* pick = time_finalists(finalists);
  stats_.final_seconds = seconds_since(final_start);
  stats_.seconds = seconds_since(start_);
  if (!pick) {
    out.error = "every finalist failed when re-timed";
    return;
  }
  copy_check_of(pick->check, out);
  out.algorithm = pick->candidate->label;
  const Driver& cu = gpu_.libs.cu;
  const Execute& run = pick->candidate->run;
  if (options_.cool_ms > 0) {
    cu.cuStreamSynchronize(gpu_.stream);
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options_.cool_ms));
    keep_busy(cu, gpu_.stream, options_.settle_ms, options_.timing.per_batch, run);
  }
  out.kernel_graph = measure(cu, gpu_.stream, TimingMethod::CudaGraph, options_.timing, run);
  out.kernel_back_to_back = measure(cu, gpu_.stream, TimingMethod::BackToBack, options_.timing, run);
  out.single_call = measure(cu, gpu_.stream, TimingMethod::SingleCall, options_.timing, run);
  if (!out.kernel().measured) out.error = "the chosen configuration failed when re-timed: " + out.kernel().note;
}

}  // namespace cudnn_install::gpu
