// A fake CUDA driver and cuDNN for the benchmark's tests: "device memory" is host memory, the
// convolutions are really computed (on tiny shapes), and time is a counter that each execution
// advances by its engine's cost, so the search, the timing methods and the check run without a GPU.
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "bench_api.hpp"

namespace cudnn_install::test {

enum class FakeOutput { Right, Wrong, Unwritten };

struct FakeKnob {
  int type = 2;  // tile_size
  int64_t min = 0, max = 8, stride = 1;
  int64_t heuristic = 2;       // the value the heuristics propose
  int64_t best = 4;            // the fastest value
  double cost_per_step = 0.2;  // relative slowdown per stride away from `best`
};

struct FakeEngine {
  int64_t index = 0;
  double ms = 1.0;  // one execution at the best knob value
  std::vector<int> notes;
  bool plans = true;       // its execution plan can be finalised
  bool capturable = true;  // its executions can be captured into a CUDA graph
  FakeOutput output = FakeOutput::Right;
  std::vector<FakeKnob> knobs;
  // From its execution late_after + 1 on (0: never), each execution costs late_factor times as
  // much: an engine whose short search timing flatters it.
  int late_after = 0;
  double late_factor = 1.0;
  double host_ms = -1;  // host cost of one call (not of a graph replay); -1: the setup's launch_ms
};

struct FakeAlgo {
  int algo = 0;
  double ms = 1.0;
  int math_type = gpu::TENSOR_OP_MATH;
};

struct FakeGpuSetup {
  std::vector<FakeEngine> engines;
  std::vector<int64_t> mode_a, mode_instant, mode_b, fallback;  // engine indices each heuristics mode proposes
  std::vector<FakeAlgo> legacy;                                 // what cudnnFind returns
  double launch_ms = 0.01;                                      // host cost of one call, hidden by a CUDA graph
  // A power controller: executions cost boost_factor of their time until the GPU has been busy
  // for boost_settle_ms (0: never boosted); the host time of a call (a replay's launch is not one)
  // is a pause that cools it by as much, and it takes pauses of boost_settle_ms to cool a GPU
  // that has run settled.
  double boost_factor = 1.0;
  double boost_settle_ms = 0;
  double copy_pause_ms = 0;  // a copy to the GPU (the check's or the timing's inputs) is a pause this long
};

// What the fake saw.
struct FakeGpuLog {
  int executions = 0;           // performed (a graph replay counts each captured execution)
  int executions_on_exact = 0;  // of those, on inputs that are all multiples of 1/8
  int captures = 0;             // graphs captured successfully
  int graph_launches = 0;
  size_t live_allocations = 0;       // device buffers not freed
  std::vector<int64_t> engine_runs;  // the engine (or advance()'s id, -1 for none) of each execution, in order
};

// Between the fake driver (bench_fake_gpu.cpp) and the fake cuDNN (bench_fake_cudnn.cpp).
namespace fake {
struct Tensor {
  std::vector<int64_t> dims, strides;  // NCHW (or KCRS) order
  int dtype = gpu::DATA_FLOAT;
};
struct Conv {
  Tensor x, w, y;
  int64_t pad = 0, stride = 1;
};
using Knobs = std::vector<std::pair<int64_t, int64_t>>;  // type, value
const FakeGpuSetup& setup();
const FakeEngine* engine_spec(int64_t index);
double engine_ms(const FakeEngine& engine, const Knobs& knobs);
// One execution: computed and timed now, or recorded into the CUDA graph being captured.
int run_conv(const Conv& conv, const void* x, const void* w, void* y, double ms, bool capturable, FakeOutput output,
             int64_t engine = -1);
gpu::Cudnn cudnn();
// An execution that does nothing for `ms`, logged as `engine`: for timing tests.
int advance(double ms, int64_t engine = -1);
}  // namespace fake

// Installs `setup` (the fake's state is global: one fake GPU at a time) and returns its libraries.
std::shared_ptr<const gpu::Libraries> fake_gpu(FakeGpuSetup setup);
const FakeGpuLog& fake_gpu_log();

}  // namespace cudnn_install::test
