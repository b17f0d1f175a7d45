// Timing on the GPU: CUDA events on the bench stream around one execution, around executions
// issued back to back, or around the replay of those executions captured in a CUDA graph.
#include <algorithm>
#include <memory>
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

// Untimed batches until `ms` of GPU time have passed; at most a thousand of them.
int warm_up_for(double ms, EventPair& events, const std::function<int()>& batch) {
  double elapsed = 0;
  for (int i = 0; i < 1000 && elapsed < ms; ++i) {
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

// One run of measure_interleaved(): its graph (when it could be captured) and its samples.
struct Contender {
  const Execute* run;
  std::unique_ptr<CapturedGraph> graph;
  KernelTimings timings;
  std::vector<double> graph_ms, back_to_back_ms;
  bool failed = false;
};

// Prepares one contender as measure() does: warm-up executions, the graph captured and launched once.
void prepare(const Driver& cu, void* stream, const TimingCounts& counts, Contender& c) {
  int per_batch = std::max(1, counts.per_batch);
  if (int status = run_times(*c.run, counts.warmup); status != 0) {
    std::string why = "an execution failed (status " + std::to_string(status) + ")";
    c.timings.graph = not_measured(c.timings.graph, why);
    c.timings.back_to_back = not_measured(c.timings.back_to_back, why);
    c.failed = true;
    return;
  }
  c.graph = std::make_unique<CapturedGraph>(cu, stream, per_batch, *c.run);
  int status = c.graph->status();
  if (status == 0 && c.graph->launch(stream) != 0) status = -1;
  if (status != 0) {
    c.timings.graph = not_measured(c.timings.graph,
                                   "the executions could not be captured into a CUDA graph or "
                                   "launched (status " +
                                       std::to_string(status) + ")");
    c.graph.reset();
  }
}

// One batch of each method for `c`; samples are per execution. A failure ends the contender.
void time_round(EventPair& events, void* stream, int per_batch, Contender& c, bool keep) {
  auto timed = [&](const std::function<int()>& batch, std::vector<double>& into, Timing& t) {
    int status = events.start();
    if (status == 0) status = batch();
    double ms = status == 0 ? events.stop() : -1;
    if (ms < 0) {
      t = not_measured(t, "an execution or its timing failed (status " + std::to_string(status) + ")");
      c.failed = true;
    } else if (keep) {
      into.push_back(ms / per_batch);
    }
  };
  timed([&] { return run_times(*c.run, per_batch); }, c.back_to_back_ms, c.timings.back_to_back);
  if (c.graph && !c.failed) timed([&] { return c.graph->launch(stream); }, c.graph_ms, c.timings.graph);
}

// A contender that failed part way has no timing: its batches stopped before the others'.
void finish_timing(Timing& t, std::vector<double> samples, bool failed) {
  if (t.measured || !t.note.empty()) return;
  if (failed) {
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

}  // namespace

// Called with members (kernel() returns a reference to one), never with temporaries.
// NOLINTBEGIN(bugprone-return-const-ref-from-parameter)
const Timing& faster_of(const Timing& graph, const Timing& back_to_back) {
  if (graph.measured && (!back_to_back.measured || graph.ms.median <= back_to_back.ms.median)) return graph;
  return back_to_back;
}
// NOLINTEND(bugprone-return-const-ref-from-parameter)

std::vector<KernelTimings> measure_interleaved(const Driver& cu, void* stream, const TimingCounts& counts,
                                               const std::vector<Execute>& runs) {
  int per_batch = std::max(1, counts.per_batch);
  std::vector<Contender> all(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    all[i].run = &runs[i];
    all[i].timings = {Timing{TimingMethod::CudaGraph, counts}, Timing{TimingMethod::BackToBack, counts}};
    prepare(cu, stream, counts, all[i]);
  }
  EventPair events(cu, stream);
  if (!events.ok())
    for (auto& c : all) {
      c.timings.back_to_back = not_measured(c.timings.back_to_back, "CUDA events could not be created");
      c.failed = true;
    }
  // A round: every contender that still runs, starting at `first`.
  auto round = [&](size_t first, bool keep) {
    for (size_t k = 0; k < all.size(); ++k) {
      Contender& c = all[(first + k) % all.size()];
      if (!c.failed) time_round(events, stream, per_batch, c, keep);
    }
  };
  // Untimed rounds until warmup_ms of GPU time have passed, as measure() warms up with batches.
  EventPair warm(cu, stream);
  double elapsed = 0;
  for (int i = 0; i < 1000 && warm.ok() && elapsed < counts.warmup_ms; ++i) {
    if (warm.start() != 0) break;
    round(0, false);
    double ms = warm.stop();
    if (ms < 0) break;
    elapsed += ms;
  }
  for (int b = 0; b < counts.batches; ++b) round(static_cast<size_t>(b), true);
  std::vector<KernelTimings> out;
  for (auto& c : all) {
    finish_timing(c.timings.graph, std::move(c.graph_ms), c.failed);
    finish_timing(c.timings.back_to_back, std::move(c.back_to_back_ms), c.failed);
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

double time_once(const Driver& cu, void* stream, const Execute& run) {
  EventPair events(cu, stream);
  if (!events.ok() || run() != 0 || events.start() != 0 || run() != 0) return -1;
  return events.stop();
}

Timing measure(const Driver& cu, void* stream, TimingMethod method, const TimingCounts& counts, const Execute& run) {
  Timing t{method, counts};
  if (method == TimingMethod::SingleCall) t.counts.per_batch = 1;
  int per_batch = std::max(1, t.counts.per_batch);
  EventPair events(cu, stream);
  if (!events.ok()) return not_measured(t, "CUDA events could not be created");
  if (int status = run_times(run, t.counts.warmup); status != 0)
    return not_measured(t, "an execution failed (status " + std::to_string(status) + ")");
  std::optional<CapturedGraph> graph;
  if (method == TimingMethod::CudaGraph) {
    graph.emplace(cu, stream, per_batch, run);
    if (graph->status() != 0)
      return not_measured(
          t, "the executions could not be captured into a CUDA graph (status " + std::to_string(graph->status()) + ")");
    if (graph->launch(stream) != 0) return not_measured(t, "the CUDA graph could not be launched");  // warm-up
  }
  auto batch = [&] { return graph ? graph->launch(stream) : run_times(run, per_batch); };
  if (int status = warm_up_for(t.counts.warmup_ms, events, batch); status != 0)
    return not_measured(t, "an execution failed while warming up (status " + std::to_string(status) + ")");
  std::vector<double> per_execution;
  for (int b = 0; b < t.counts.batches; ++b) {
    int status = events.start();
    if (status == 0) status = batch();
    double ms = status == 0 ? events.stop() : -1;
    if (ms < 0) return not_measured(t, "an execution or its timing failed (status " + std::to_string(status) + ")");
    per_execution.push_back(ms / per_batch);
  }
  if (per_execution.empty()) return not_measured(t, "no batch was timed");
  t.ms = spread_of(std::move(per_execution));
  t.measured = true;
  return t;
}

}  // namespace cudnn_install::gpu
