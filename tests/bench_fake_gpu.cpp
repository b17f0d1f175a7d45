// The fake CUDA driver and cuDNN of bench_fake_gpu.hpp. Backend descriptors keep their attributes
// as int64 or pointer arrays; only what the benchmark reads back is implemented.
#include "bench_fake_gpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

namespace cudnn_install::test {
namespace {

using namespace gpu;

constexpr int kNotSupported = 3000;  // CUDNN_STATUS_NOT_SUPPORTED
constexpr int kCaptureInvalidated = 901;

using fake::Conv;
using fake::Tensor;

struct State {
  FakeGpuSetup setup;
  FakeGpuLog log;
  double now_ms = 0;
  double busy_ms = 0;  // busy GPU time less pauses, at most twice boost_settle_ms
  bool capturing = false, capture_invalid = false;
  std::vector<std::function<double()>> captured;
  std::map<int64_t, int> engine_executions;
};
State g;

struct Graph {
  std::vector<std::function<double()>> ops;  // each performs one execution and gives its cost
};

float load(const void* base, int64_t offset, int dtype) {
  if (dtype == DATA_FLOAT) return static_cast<const float*>(base)[offset];
  std::uint16_t bits = static_cast<const std::uint16_t*>(base)[offset];
  return dtype == DATA_HALF ? from_half_bits(bits) : from_bf16_bits(bits);
}

void save(void* base, int64_t offset, int dtype, float v) {
  if (dtype == DATA_FLOAT)
    static_cast<float*>(base)[offset] = v;
  else
    static_cast<std::uint16_t*>(base)[offset] = dtype == DATA_HALF ? to_half_bits(v) : to_bf16_bits(v);
}

bool all_exact(const void* base, const Tensor& t) {
  int64_t count = t.dims[0] * t.dims[1] * t.dims[2] * t.dims[3];
  for (int64_t i = 0; i < count; ++i) {
    float v = load(base, i, t.dtype) * 8;
    if (v != std::round(v)) return false;
  }
  return true;
}

int64_t at(const Tensor& t, int64_t a, int64_t b, int64_t c, int64_t d) {
  return a * t.strides[0] + b * t.strides[1] + c * t.strides[2] + d * t.strides[3];
}

// The convolution, really computed; `output` says what the engine writes.
void convolve(const Conv& cv, const void* x, const void* w, void* y, FakeOutput output) {
  ++g.log.executions;
  if (all_exact(x, cv.x) && all_exact(w, cv.w)) ++g.log.executions_on_exact;
  if (output == FakeOutput::Unwritten) return;
  const auto& yd = cv.y.dims;
  for (int64_t n = 0; n < yd[0]; ++n)
    for (int64_t k = 0; k < yd[1]; ++k)
      for (int64_t p = 0; p < yd[2]; ++p)
        for (int64_t q = 0; q < yd[3]; ++q) {
          double sum = output == FakeOutput::Wrong ? 1.0 : 0.0;
          for (int64_t c = 0; c < cv.x.dims[1]; ++c)
            for (int64_t r = 0; r < cv.w.dims[2]; ++r)
              for (int64_t s = 0; s < cv.w.dims[3]; ++s) {
                int64_t hi = p * cv.stride - cv.pad + r, wi = q * cv.stride - cv.pad + s;
                if (hi < 0 || hi >= cv.x.dims[2] || wi < 0 || wi >= cv.x.dims[3]) continue;
                sum += double(load(x, at(cv.x, n, c, hi, wi), cv.x.dtype)) * load(w, at(cv.w, k, c, r, s), cv.w.dtype);
              }
          save(y, at(cv.y, n, k, p, q), cv.y.dtype, static_cast<float>(sum));
        }
}

// The cost of an execution of `engine` (-1: none) now: its engine may have slowed down by now,
// and the GPU may still run at its boost clock.
double cost_now(int64_t engine, double ms) {
  g.log.engine_runs.push_back(engine);
  const FakeEngine* spec = engine >= 0 ? fake::engine_spec(engine) : nullptr;
  if (spec && spec->late_after > 0 && ++g.engine_executions[engine] > spec->late_after) ms *= spec->late_factor;
  if (g.busy_ms < g.setup.boost_settle_ms) ms *= g.setup.boost_factor;
  // Settled, it stays so through short pauses: it takes a pause of boost_settle_ms to cool it.
  g.busy_ms = std::min(g.busy_ms + ms, 2 * g.setup.boost_settle_ms);
  return ms;
}

// The host cost of one call of `engine`.
double host_ms(int64_t engine) {
  const FakeEngine* spec = engine >= 0 ? fake::engine_spec(engine) : nullptr;
  return spec && spec->host_ms >= 0 ? spec->host_ms : g.setup.launch_ms;
}

// One execution: performed now, or recorded when the stream is being captured.
int execute(int64_t engine, double ms, bool capturable, std::function<void()> work) {
  auto op = [engine, ms, work = std::move(work)] {
    work();
    return cost_now(engine, ms);
  };
  if (g.capturing) {
    if (!capturable) {
      g.capture_invalid = true;
      return kNotSupported;
    }
    g.captured.push_back(std::move(op));
    return 0;
  }
  double host = host_ms(engine);  // the GPU waits while the host makes the call
  g.busy_ms = std::max(0.0, g.busy_ms - host);
  g.now_ms += op() + host;
  return 0;
}

// --- the driver ---
int ok0() { return 0; }
int cu_init(unsigned) { return 0; }
int cu_device_get(int* d, int) { return *d = 0; }
int cu_device_name(char* name, int len, int) {
  std::snprintf(name, static_cast<size_t>(len), "Fake GPU");
  return 0;
}
int cu_attribute(int* v, int attr, int) {
  *v = attr == ATTR_SM_COUNT ? 10 : attr == ATTR_CLOCK_RATE ? 1000000 : attr == ATTR_CC_MAJOR ? 9 : 0;
  return 0;
}
int cu_total(size_t* bytes, int) {
  *bytes = size_t(16) << 30;
  return 0;
}
int cu_retain(void** ctx, int) {
  *ctx = &g;
  return 0;
}
int cu_set_ctx(void*) { return 0; }
int cu_alloc(CUdeviceptr* p, size_t bytes) {
  void* mem = std::calloc(1, bytes);
  if (!mem) return 2;
  ++g.log.live_allocations;
  *p = reinterpret_cast<CUdeviceptr>(mem);
  return 0;
}
int cu_free(CUdeviceptr p) {
  --g.log.live_allocations;
  std::free(reinterpret_cast<void*>(p));
  return 0;
}
int cu_mem_info(size_t* free_bytes, size_t* total) {
  *free_bytes = size_t(8) << 30;
  *total = size_t(16) << 30;
  return 0;
}
int cu_htod(CUdeviceptr d, const void* h, size_t n) {
  std::memcpy(reinterpret_cast<void*>(d), h, n);
  g.busy_ms = std::max(0.0, g.busy_ms - g.setup.copy_pause_ms);
  g.now_ms += g.setup.copy_pause_ms;
  return 0;
}
int cu_dtoh(void* h, CUdeviceptr d, size_t n) {
  std::memcpy(h, reinterpret_cast<void*>(d), n);
  return 0;
}
int cu_memset(CUdeviceptr d, unsigned char v, size_t n) {
  std::memset(reinterpret_cast<void*>(d), v, n);
  return 0;
}
int cu_event_create(void** e, unsigned) {
  *e = new double(0);
  return 0;
}
int cu_event_record(void* e, void*) {
  if (g.capturing) return kCaptureInvalidated;
  *static_cast<double*>(e) = g.now_ms;
  return 0;
}
int cu_event_sync(void*) { return 0; }
int cu_elapsed(float* ms, void* start, void* stop) {
  *ms = static_cast<float>(*static_cast<double*>(stop) - *static_cast<double*>(start));
  return 0;
}
int cu_event_destroy(void* e) {
  delete static_cast<double*>(e);
  return 0;
}
int cu_stream_create(void** s, unsigned) {
  *s = &g.now_ms;
  return 0;
}
int cu_stream_op(void*) { return 0; }
int cu_begin_capture(void*, int) {
  g.capturing = true;
  g.capture_invalid = false;
  g.captured.clear();
  return 0;
}
int cu_end_capture(void*, void** graph) {
  g.capturing = false;
  *graph = nullptr;
  if (g.capture_invalid) return kCaptureInvalidated;
  *graph = new Graph{std::move(g.captured)};
  ++g.log.captures;
  return 0;
}
int cu_instantiate(void** exec, void* graph, unsigned long long) {
  *exec = new Graph(*static_cast<Graph*>(graph));
  return 0;
}
int cu_launch(void* exec, void*) {
  auto* graph = static_cast<Graph*>(exec);
  double ms = 0;
  for (auto& op : graph->ops) ms += op();
  g.now_ms += ms + g.setup.launch_ms;
  ++g.log.graph_launches;
  return 0;
}
int cu_graph_destroy(void* graph) {
  delete static_cast<Graph*>(graph);
  return 0;
}

Driver fake_driver() {
  Driver d;
  d.cuInit = cu_init;
  d.cuDeviceGet = cu_device_get;
  d.cuDeviceGetName = cu_device_name;
  d.cuDeviceGetAttribute = cu_attribute;
  d.cuDeviceTotalMem = cu_total;
  d.cuDevicePrimaryCtxRetain = cu_retain;
  d.cuCtxSetCurrent = cu_set_ctx;
  d.cuMemAlloc = cu_alloc;
  d.cuMemFree = cu_free;
  d.cuMemGetInfo = cu_mem_info;
  d.cuMemcpyHtoD = cu_htod;
  d.cuMemcpyDtoH = cu_dtoh;
  d.cuEventCreate = cu_event_create;
  d.cuEventRecord = cu_event_record;
  d.cuEventSynchronize = cu_event_sync;
  d.cuEventElapsedTime = cu_elapsed;
  d.cuEventDestroy = cu_event_destroy;
  d.cuCtxSynchronize = ok0;
  d.cuMemsetD8 = cu_memset;
  d.cuStreamCreate = cu_stream_create;
  d.cuStreamDestroy = cu_stream_op;
  d.cuStreamSynchronize = cu_stream_op;
  d.cuStreamBeginCapture = cu_begin_capture;
  d.cuStreamEndCapture = cu_end_capture;
  d.cuGraphInstantiate = cu_instantiate;
  d.cuGraphLaunch = cu_launch;
  d.cuGraphExecDestroy = cu_graph_destroy;
  d.cuGraphDestroy = cu_graph_destroy;
  return d;
}

}  // namespace

namespace fake {

const FakeGpuSetup& setup() { return g.setup; }

const FakeEngine* engine_spec(int64_t index) {
  for (const auto& e : g.setup.engines)
    if (e.index == index) return &e;
  return nullptr;
}

double engine_ms(const FakeEngine& e, const Knobs& knobs) {
  double ms = e.ms;
  for (const FakeKnob& k : e.knobs) {
    int64_t value = k.heuristic;
    for (auto [type, v] : knobs)
      if (type == k.type) value = v;
    ms *= 1 + k.cost_per_step * static_cast<double>(std::llabs(value - k.best) / k.stride);
  }
  return ms;
}

int run_conv(const Conv& cv, const void* x, const void* w, void* y, double ms, bool capturable, FakeOutput output,
             int64_t engine) {
  return execute(engine, ms, capturable, [cv, x, w, y, output] { convolve(cv, x, w, y, output); });
}

int advance(double ms, int64_t engine) {
  return execute(engine, ms, true, [] { ++g.log.executions; });
}

}  // namespace fake

std::shared_ptr<const Libraries> fake_gpu(FakeGpuSetup setup) {
  g.setup = std::move(setup);
  g.log = {};
  g.now_ms = 0;
  g.busy_ms = 0;
  g.capturing = false;
  g.engine_executions.clear();
  auto libs = std::make_shared<Libraries>();
  libs->cu = fake_driver();
  libs->dnn = fake::cudnn();
  return libs;
}

const FakeGpuLog& fake_gpu_log() { return g.log; }

}  // namespace cudnn_install::test
