// Timing on the GPU: CUDA events on the bench stream around one execution, around executions
// issued back to back, or around the replay of those executions captured in a CUDA graph.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "bench_api.hpp"

namespace cudnn_install::gpu {
namespace {

// Two events, destroyed on scope exit.
class EventPair {
 public:
  EventPair(const Driver& cu, void* stream) : cu_(cu), stream_(stream) {
    ok_ = cu_.cuEventCreate(&start_, 0) == 0 && cu_.cuEventCreate(&stop_, 0) == 0;
  }
  ~EventPair() {
    if (start_) cu_.cuEventDestroy(start_);
    if (stop_) cu_.cuEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  bool ok() const { return ok_; }
  int start() { return cu_.cuEventRecord(start_, stream_); }
  // Records the stop event, waits for it and gives the milliseconds between the two; <0 on failure.
  double stop() {
    float ms = 0;
    if (cu_.cuEventRecord(stop_, stream_) != 0 || cu_.cuEventSynchronize(stop_) != 0 ||
        cu_.cuEventElapsedTime(&ms, start_, stop_) != 0)
      return -1;
    return ms;
  }

 private:
  const Driver& cu_;
  void* stream_;
  void* start_ = nullptr;
  void* stop_ = nullptr;
  bool ok_ = false;
};

// `count` executions captured from the bench stream into an instantiated CUDA graph.
class CapturedGraph {
 public:
  CapturedGraph(const Driver& cu, void* stream, int count, const Execute& run) : cu_(cu) {
    status_ = cu_.cuStreamBeginCapture(stream, CAPTURE_MODE_THREAD_LOCAL);
    if (status_ != 0) return;
    int run_status = 0;
    for (int i = 0; i < count && run_status == 0; ++i) run_status = run();
    status_ = cu_.cuStreamEndCapture(stream, &graph_);  // always ends the capture, even after a failure
    if (status_ == 0 && run_status != 0) status_ = run_status;
    if (status_ == 0) status_ = cu_.cuGraphInstantiate(&exec_, graph_, 0);
  }
  ~CapturedGraph() {
    if (exec_) cu_.cuGraphExecDestroy(exec_);
    if (graph_) cu_.cuGraphDestroy(graph_);
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  int status() const { return status_; }
  int launch(void* stream) const { return cu_.cuGraphLaunch(exec_, stream); }

 private:
  const Driver& cu_;
  void* graph_ = nullptr;
  void* exec_ = nullptr;
  int status_ = 0;
};

// Untimed batches until `ms` of GPU time have passed; at most `most` of them (a bound for batches
// that take no time).
int warm_up_for(double ms, EventPair& events, const std::function<int()>& batch, int most = 1000) {
  double elapsed = 0;
  for (int i = 0; i < most && elapsed < ms; ++i) {
    int status = events.start();
    if (status == 0) status = batch();
    double batch_ms = status == 0 ? events.stop() : -1;
    if (batch_ms < 0) return status != 0 ? status : -1;
    elapsed += batch_ms;
  }
  return 0;
}

int run_times(const Execute& run, int count) {
  int status = 0;
  for (int i = 0; i < count && status == 0; ++i) status = run();
  return status;
}

Timing not_measured(Timing t, std::string why) {
  t.measured = false;
  t.note = std::move(why);
  return t;
}

std::string with_status(const std::string& what, int status) {
  return what + " (status " + std::to_string(status) + ")";
}

// Appends the per-execution milliseconds of `counts.batches` batches of `method` to `samples`, timed
// as measure() says (a single call's counts have one execution per batch); gives why not, or "" when
// they were timed.
std::string time_batches(const Driver& cu, void* stream, TimingMethod method, const TimingCounts& counts,
                         const Execute& run, std::vector<double>& samples) {
  int per_batch = std::max(1, counts.per_batch);
  EventPair events(cu, stream);
  if (!events.ok()) return "CUDA events could not be created";
  if (int status = run_times(run, counts.warmup); status != 0) return with_status("an execution failed", status);
  std::optional<CapturedGraph> graph;
  if (method == TimingMethod::CudaGraph) {
    graph.emplace(cu, stream, per_batch, run);
    if (graph->status() != 0)
      return with_status("the executions could not be captured into a CUDA graph", graph->status());
    if (graph->launch(stream) != 0) return "the CUDA graph could not be launched";  // warm-up
  }
  auto batch = [&] { return graph ? graph->launch(stream) : run_times(run, per_batch); };
  if (int status = warm_up_for(counts.warmup_ms, events, batch); status != 0)
    return with_status("an execution failed while warming up", status);
  for (int b = 0; b < counts.batches; ++b) {
    int status = events.start();
    if (status == 0) status = batch();
    double ms = status == 0 ? events.stop() : -1;
    if (ms < 0) return with_status("an execution or its timing failed", status);
    samples.push_back(ms / per_batch);
  }
  return {};
}

// A timing from its samples, unless a note already says why it has none.
void finish_timing(Timing& t, std::vector<double> samples, bool other_failed) {
  if (!t.note.empty()) return;
  if (other_failed) {
    t = not_measured(t, "not timed further after an execution of the other method failed");
    return;
  }
  if (samples.empty()) {
    t = not_measured(t, "no batch was timed");
    return;
  }
  t.ms = spread_of(std::move(samples));
  t.measured = true;
}

// One run of measure_in_turn(): its timings so far and their samples.
struct Contender {
  KernelTimings timings;
  std::vector<double> graph_ms, back_to_back_ms;
  bool failed = false;  // an execution of the back-to-back phase failed: not timed further
};

// A phase of each method for one contender. A failure in the graph phase ends its graph timing
// (the executions may not be capturable); one in the back-to-back phase ends the contender.
void time_phases(const Driver& cu, void* stream, const TimingCounts& phase, const Execute& run, Contender& c) {
  if (c.failed) return;
  if (c.timings.graph.note.empty())
    if (std::string why = time_batches(cu, stream, TimingMethod::CudaGraph, phase, run, c.graph_ms); !why.empty())
      c.timings.graph = not_measured(c.timings.graph, why);
  if (std::string why = time_batches(cu, stream, TimingMethod::BackToBack, phase, run, c.back_to_back_ms);
      !why.empty()) {
    c.timings.back_to_back = not_measured(c.timings.back_to_back, why);
    c.failed = true;
  }
}

}  // namespace

// Called with members (kernel() returns a reference to one), never with temporaries.
// NOLINTBEGIN(bugprone-return-const-ref-from-parameter)
const Timing& faster_of(const Timing& graph, const Timing& back_to_back) {
  if (graph.measured && (!back_to_back.measured || graph.ms.median <= back_to_back.ms.median)) return graph;
  return back_to_back;
}
// NOLINTEND(bugprone-return-const-ref-from-parameter)

std::vector<KernelTimings> measure_in_turn(const Driver& cu, void* stream, const TimingCounts& counts,
                                           const std::vector<Execute>& runs) {
  constexpr int kRounds = 2;
  std::vector<Contender> all(runs.size());
  for (auto& c : all) c.timings = {Timing{TimingMethod::CudaGraph, counts}, Timing{TimingMethod::BackToBack, counts}};
  for (int round = 0; round < kRounds; ++round) {
    TimingCounts phase = counts;
    phase.batches = counts.batches / kRounds + (round < counts.batches % kRounds ? 1 : 0);
    phase.warmup_ms = counts.warmup_ms / kRounds;
    if (phase.batches == 0) continue;
    for (size_t k = 0; k < all.size(); ++k) {
      size_t i = round % 2 == 0 ? k : all.size() - 1 - k;  // forward, then backward
      time_phases(cu, stream, phase, runs[i], all[i]);
    }
  }
  std::vector<KernelTimings> out;
  for (auto& c : all) {
    finish_timing(c.timings.graph, std::move(c.graph_ms), c.failed);
    finish_timing(c.timings.back_to_back, std::move(c.back_to_back_ms), false);
    out.push_back(std::move(c.timings));
  }
  return out;
}

Spread spread_of(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  return {samples.front(), median, samples.back()};
}

int keep_busy(const Driver& cu, void* stream, double ms, int per_batch, const Execute& run) {
  if (ms <= 0) return 0;
  EventPair events(cu, stream);
  if (!events.ok()) return -1;
  // A batch of a small layer lasts under a millisecond: a thousand would not fill a second.
  constexpr int kMostBatches = 100000;
  return warm_up_for(
      ms, events, [&] { return run_times(run, std::max(1, per_batch)); }, kMostBatches);
}

double time_once(const Driver& cu, void* stream, const Execute& run) {
  EventPair events(cu, stream);
  if (!events.ok() || run() != 0 || events.start() != 0 || run() != 0) return -1;
  return events.stop();
}

Timing measure(const Driver& cu, void* stream, TimingMethod method, const TimingCounts& counts, const Execute& run) {
  Timing t{method, counts};
  if (method == TimingMethod::SingleCall) t.counts.per_batch = 1;
  std::vector<double> samples;
  if (std::string why = time_batches(cu, stream, method, t.counts, run, samples); !why.empty())
    return not_measured(t, why);
  finish_timing(t, std::move(samples), false);
  return t;
}

}  // namespace cudnn_install::gpu
