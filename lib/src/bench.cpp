// The benchmark operation: finds the cuDNN, opens the GPU, and for every (shape, data type,
// layout) fills fresh buffers and lets each tier search, check and time its pick.
#include "cudnn_install/bench.hpp"

#include <cstring>

#include "base/try.hpp"
#include "bench_api.hpp"

namespace cudnn_install {
namespace {

using namespace gpu;

constexpr std::uint64_t kTimingSeed = 7;
constexpr size_t kTimingPool = size_t(1) << 20;  // distinct timing values, repeated over a tensor

DeviceInfo describe_device(const Driver& cu, int dev) {
  DeviceInfo d;
  char name[256] = {};
  cu.cuDeviceGetName(name, sizeof name, dev);
  d.name = name;
  int clock_khz = 0;
  cu.cuDeviceGetAttribute(&d.sm_count, ATTR_SM_COUNT, dev);
  cu.cuDeviceGetAttribute(&clock_khz, ATTR_CLOCK_RATE, dev);
  cu.cuDeviceGetAttribute(&d.cc_major, ATTR_CC_MAJOR, dev);
  cu.cuDeviceGetAttribute(&d.cc_minor, ATTR_CC_MINOR, dev);
  d.clock_mhz = clock_khz / 1000;
  size_t total = 0;
  cu.cuDeviceTotalMem(&total, dev);
  d.total_gib = static_cast<double>(total) / (1ull << 30);
  auto set = [&](double fp32, double tf32, double half, std::string source) {
    d.peak_tflops[int(DataType::Fp32)] = fp32;
    d.peak_tflops[int(DataType::Tf32)] = tf32;
    d.peak_tflops[int(DataType::Fp16)] = d.peak_tflops[int(DataType::Bf16)] = half;
    d.peak_source = std::move(source);
  };
  if (d.name.find("H100") != std::string::npos || d.name.find("H200") != std::string::npos)
    set(66.9, 494.7, 989.4, "NVIDIA datasheet, H100/H200 SXM dense (FP32 66.9, TF32 494.7, FP16/BF16 989.4 TFLOP/s)");
  else if (d.name.find("A100") != std::string::npos)
    set(19.5, 156, 312, "NVIDIA datasheet, A100 dense (FP32 19.5, TF32 156, FP16/BF16 312 TFLOP/s)");
  else if (d.cc_major >= 8) {
    double ghz_sm = d.sm_count * clock_khz / 1e6;  // SMs x GHz
    double half = d.cc_major == 9 ? 4096 : (d.cc_minor == 0 ? 2048 : 1024);
    set(ghz_sm * 256 / 1e3, ghz_sm * half / 2 / 1e3, ghz_sm * half / 1e3,
        "device attributes: SMs x clock x per-SM dense rate of compute capability " + std::to_string(d.cc_major) + "." +
            std::to_string(d.cc_minor));
  } else {
    d.peak_source = "unknown for this GPU";
  }
  return d;
}

// The GPU side of one run: cuDNN handle, the stream everything is issued to, the shared workspace.
struct Session {
  std::shared_ptr<const Libraries> libs;
  Handle handle = nullptr;
  void* stream = nullptr;
  DeviceInfo device;
  std::unique_ptr<DeviceBuffer> workspace;
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    workspace.reset();
    if (handle) libs->dnn.Destroy(handle);
    if (stream) libs->cu.cuStreamDestroy(stream);
  }
};

Result<void> open_gpu(Session& s, std::uint64_t workspace_limit) {
  const Driver& cu = s.libs->cu;
  const Cudnn& dnn = s.libs->dnn;
  int dev = 0;
  void* ctx = nullptr;
  int rc = cu.cuInit(0);
  if (rc == 0) rc = cu.cuDeviceGet(&dev, 0);
  if (rc == 0) rc = cu.cuDevicePrimaryCtxRetain(&ctx, dev);
  if (rc == 0) rc = cu.cuCtxSetCurrent(ctx);
  if (rc == 0) rc = cu.cuStreamCreate(&s.stream, 0);
  if (rc != 0)
    return fail(ErrorCode::VerifyFailed, "no usable GPU: the CUDA driver answered error " + std::to_string(rc));
  s.device = describe_device(cu, dev);
  if (int st = dnn.Create(&s.handle); st != 0)
    return fail(ErrorCode::VerifyFailed, std::string("cudnnCreate failed: ") + dnn.GetErrorString(st));
  if (int st = dnn.SetStream(s.handle, s.stream); st != 0)
    return fail(ErrorCode::VerifyFailed, std::string("cudnnSetStream failed: ") + dnn.GetErrorString(st));
  // A quarter of the free memory at most: the tensors of the largest layer need room beside it.
  size_t free_bytes = 0, total_bytes = 0;
  cu.cuMemGetInfo(&free_bytes, &total_bytes);
  s.workspace = std::make_unique<DeviceBuffer>(cu, std::min<std::uint64_t>(workspace_limit, free_bytes / 4));
  return {};
}

void set_rates(BenchResult& r, const DeviceInfo& dev) {
  if (!r.error.empty()) return;
  r.tflops = r.config.shape.flops() / (r.kernel().ms.median * 1e-3) / 1e12;
  double peak = dev.peak_tflops[int(r.config.dtype)];
  r.peak_percent = peak > 0 ? 100.0 * r.tflops / peak : 0;
}

// The buffers of one configuration and both kinds of inputs.
struct ConfigData {
  DeviceBuffer x, w, y;
  HostInputs exact, timing;
  TimingData timing_kind;
  ConfigData(const Driver& cu, const BenchConfig& c, TimingData kind, const std::vector<float>& pool)
      : x(cu, size_t(c.shape.n) * c.shape.c * c.shape.h * c.shape.w * element_size(c.dtype)),
        w(cu, size_t(c.shape.k) * c.shape.c * c.shape.r * c.shape.s * element_size(c.dtype)),
        y(cu, size_t(c.shape.n) * c.shape.k * c.shape.p() * c.shape.q() * element_size(c.dtype)),
        exact(exact_inputs(c)),
        timing(kind == TimingData::Normal ? timing_inputs(c, pool) : HostInputs{}),
        timing_kind(kind) {}
  bool ok() const { return x.ok() && w.ok() && y.ok(); }
  bool upload(const Driver& cu, TimingData kind) const {
    const HostInputs& in = kind == TimingData::Normal && timing_kind == TimingData::Normal ? timing : exact;
    return cu.cuMemcpyHtoD(x.address(), in.x.data(), in.x.size()) == 0 &&
           cu.cuMemcpyHtoD(w.address(), in.w.data(), in.w.size()) == 0;
  }
};

void run_tier(Session& s, const BenchOptions& o, const ConfigData& data, BenchResult& r) {
  const Driver& cu = s.libs->cu;
  Gpu gpu{*s.libs, s.handle, s.stream, *s.workspace};
  Operands io{data.x.get(), data.w.get(), data.y.get()};
  if (!data.upload(cu, o.timing_data)) {
    r.error = "the inputs could not be copied to the GPU";
    return;
  }
  Search search(gpu, o, r.search);
  std::string error;
  TierState state = r.config.tier == Tier::Legacy ? search_legacy(gpu, r.config, io, search, error)
                                                  : search_graph(gpu, r.config, o, io, search, error);
  if (!error.empty()) {
    r.error = error;
    return;
  }
  CheckHooks hooks;
  hooks.use_data = [&](TimingData kind) { return data.upload(cu, kind); };
  hooks.check = [&](const Execute& run, BenchResult& out) {
    // NaN in every data type: an output the execution did not write fails the check.
    int status = cu.cuMemsetD8(data.y.address(), 0xFF, data.y.size());
    if (status == 0) status = run();
    if (status == 0) status = cu.cuStreamSynchronize(s.stream);
    check_output(cu, data.y.address(), out);
    if (status != 0) out.correct = false;
  };
  search.finish(hooks, r);
}

void run_config(Session& s, const BenchConfig& base, const BenchOptions& o, const std::vector<float>& pool,
                const BenchServices& services, BenchReport& report) {
  ConfigData data(s.libs->cu, base, o.timing_data, pool);
  for (Tier tier : o.tiers) {
    BenchResult r;
    r.config = base;
    r.config.tier = tier;
    if (!data.ok())
      r.error = "not enough GPU memory for this configuration";
    else
      run_tier(s, o, data, r);
    set_rates(r, s.device);
    if (services.on_result) services.on_result(r);
    report.results.push_back(std::move(r));
  }
}

Result<std::filesystem::path> library_of(const BenchRequest& request, const BenchServices& services) {
  if (request.library) return *request.library;
  if (request.toolkit) return installed_cudnn_library(*request.toolkit);
  if (!services.processes) return fail(ErrorCode::NoToolkit, "no toolkit given, and no way to search for one");
  TRY_ASSIGN(auto toolkit,
             choose_toolkit(system_toolkit_search(request.cuda_root, *services.processes), ToolkitPurpose::Inspect));
  return installed_cudnn_library(toolkit);
}

}  // namespace

const Timing& BenchResult::kernel() const { return gpu::faster_of(kernel_graph, kernel_back_to_back); }
const Timing& Finalist::kernel() const { return gpu::faster_of(graph, back_to_back); }

bool BenchReport::all_correct() const {
  for (const auto& r : results)
    if (r.error.empty() && !r.correct) return false;
  return true;
}

BenchServices system_bench_services() {
  BenchServices services;
  services.load = [](const std::filesystem::path& cudnn) -> Result<std::shared_ptr<const Libraries>> {
    TRY_ASSIGN(auto libs, load_libraries(cudnn));
    return std::make_shared<const Libraries>(libs);
  };
  services.processes = make_process_runner();
  return services;
}

Result<BenchReport> bench(const BenchRequest& request, const BenchServices& services) {
  TRY_ASSIGN(auto library, library_of(request, services));
  TRY_ASSIGN(auto libs, services.load(library));
  BenchReport report;
  report.options = request.options;
  if (report.options.shapes.empty()) report.options.shapes = bench_shapes(ShapeSet::ResNet50, 128);
  Session s;
  s.libs = libs;
  TRY(open_gpu(s, report.options.workspace_limit));
  report.device = s.device;
  report.library = library.string();
  report.cudnn_version = static_cast<long>(s.libs->dnn.GetVersion());
  auto pool = normal_values(kTimingPool, kTimingSeed);
  for (const auto& shape : report.options.shapes)
    for (DataType dt : report.options.dtypes)
      for (Layout layout : report.options.layouts)
        run_config(s, BenchConfig{shape, dt, layout, Tier::Legacy}, report.options, pool, services, report);
  return report;
}

}  // namespace cudnn_install
