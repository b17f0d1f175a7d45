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

}  // namespace

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
