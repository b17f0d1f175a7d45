// The benchmark: every (shape, data type, layout) gets fresh buffers of exact test data; each tier
// times it, then ~256 sampled outputs are compared with a double-precision CPU reference.
#include "cudnn_install/bench.hpp"

#include <cmath>
#include <cstring>
#include <random>

#include "bench_api.hpp"

namespace cudnn_install {
namespace {

using namespace gpu;

constexpr std::uint64_t kSeedX = 1, kSeedW = 2;
constexpr int kCheckedPoints = 256;

// Logical NCHW (or KCRS) index of a physical offset in `layout`.
std::uint64_t logical_index(std::uint64_t o, Layout layout, std::uint64_t c, std::uint64_t h, std::uint64_t w) {
  if (layout == Layout::Nchw) return o;
  std::uint64_t ci = o % c, wi = (o / c) % w, hi = (o / c / w) % h, ni = o / c / w / h;
  return ((ni * c + ci) * h + hi) * w + wi;
}

std::vector<std::uint8_t> host_tensor(DataType t, Layout layout, std::uint64_t n, std::uint64_t c, std::uint64_t h,
                                      std::uint64_t w, std::uint64_t seed) {
  std::uint64_t count = n * c * h * w;
  std::vector<std::uint8_t> bytes(count * element_size(t));
  for (std::uint64_t o = 0; o < count; ++o) {
    float v = input_value(logical_index(o, layout, c, h, w), seed);
    if (t == DataType::Fp16)
      reinterpret_cast<std::uint16_t*>(bytes.data())[o] = to_half_bits(v);
    else if (t == DataType::Bf16)
      reinterpret_cast<std::uint16_t*>(bytes.data())[o] = to_bf16_bits(v);
    else
      reinterpret_cast<float*>(bytes.data())[o] = v;
  }
  return bytes;
}

float read_output(const Driver& cu, CUdeviceptr y, std::uint64_t offset, DataType t) {
  std::uint8_t raw[4] = {};
  cu.cuMemcpyDtoH(raw, y + offset * element_size(t), element_size(t));
  std::uint16_t bits;
  std::memcpy(&bits, raw, 2);
  if (t == DataType::Fp16) return from_half_bits(bits);
  if (t == DataType::Bf16) return from_bf16_bits(bits);
  float f;
  std::memcpy(&f, raw, 4);
  return f;
}

// Worst |gpu - ref| / sum|terms| over sampled outputs.
double check_output(const Driver& cu, CUdeviceptr y, const BenchConfig& cfg, int* points) {
  const ConvShape& s = cfg.shape;
  std::mt19937_64 rng(42);
  double worst = 0;
  for (int i = 0; i < kCheckedPoints; ++i) {
    int n = static_cast<int>(rng() % s.n), k = static_cast<int>(rng() % s.k);
    int p = static_cast<int>(rng() % s.p()), q = static_cast<int>(rng() % s.q());
    double ref = 0, magnitude = 0;
    for (int c = 0; c < s.c; ++c)
      for (int r = 0; r < s.r; ++r)
        for (int t = 0; t < s.s; ++t) {
          int hi = p * s.stride - s.pad + r, wi = q * s.stride - s.pad + t;
          if (hi < 0 || hi >= s.h || wi < 0 || wi >= s.w) continue;
          double term = double(input_value(((std::uint64_t(n) * s.c + c) * s.h + hi) * s.w + wi, kSeedX)) *
                        input_value(((std::uint64_t(k) * s.c + c) * s.r + r) * s.s + t, kSeedW);
          ref += term;
          magnitude += std::fabs(term);
        }
    std::uint64_t offset = cfg.layout == Layout::Nchw ? ((std::uint64_t(n) * s.k + k) * s.p() + p) * s.q() + q
                                                      : ((std::uint64_t(n) * s.p() + p) * s.q() + q) * s.k + k;
    double got = read_output(cu, y, offset, cfg.dtype);
    double err = std::fabs(got - ref) / (magnitude > 0 ? magnitude : 1.0);
    if (!(err <= worst)) worst = err;  // NaN sticks
  }
  *points = kCheckedPoints;
  return worst;
}

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

void finish(BenchResult& r, const DeviceInfo& dev, const Driver& cu, CUdeviceptr y) {
  if (!r.error.empty()) return;
  const BenchConfig& c = r.config;
  r.tflops = c.shape.flops() / (r.median_ms * 1e-3) / 1e12;
  double peak = dev.peak_tflops[int(c.dtype)];
  r.peak_percent = peak > 0 ? 100.0 * r.tflops / peak : 0;
  r.tolerance = tolerance_of(c.dtype);
  r.max_error = check_output(cu, y, c, &r.checked_points);
  r.correct = r.max_error <= r.tolerance;
}

struct Session {
  Libraries libs;
  Handle handle = nullptr;
  DeviceInfo device;
};

Result<void> open_gpu(Session& s) {
  const Driver& cu = s.libs.cu;
  int dev = 0;
  void* ctx = nullptr;
  int rc = cu.cuInit(0);
  if (rc == 0) rc = cu.cuDeviceGet(&dev, 0);
  if (rc == 0) rc = cu.cuDevicePrimaryCtxRetain(&ctx, dev);
  if (rc == 0) rc = cu.cuCtxSetCurrent(ctx);
  if (rc != 0)
    return fail(ErrorCode::VerifyFailed, "no usable GPU: the CUDA driver answered error " + std::to_string(rc));
  s.device = describe_device(cu, dev);
  if (int st = s.libs.dnn.Create(&s.handle); st != 0)
    return fail(ErrorCode::VerifyFailed, std::string("cudnnCreate failed: ") + s.libs.dnn.GetErrorString(st));
  return {};
}

void run_config(Session& s, const BenchConfig& base, const BenchOptions& o, DeviceBuffer& workspace,
                BenchReport& report) {
  const Driver& cu = s.libs.cu;
  const ConvShape& sh = base.shape;
  size_t es = element_size(base.dtype);
  DeviceBuffer x(cu, size_t(sh.n) * sh.c * sh.h * sh.w * es), w(cu, size_t(sh.k) * sh.c * sh.r * sh.s * es),
      y(cu, size_t(sh.n) * sh.k * sh.p() * sh.q() * es);
  auto hx = host_tensor(base.dtype, base.layout, sh.n, sh.c, sh.h, sh.w, kSeedX);
  auto hw = host_tensor(base.dtype, base.layout, sh.k, sh.c, sh.r, sh.s, kSeedW);
  bool ready = x.ok() && w.ok() && y.ok() && cu.cuMemcpyHtoD(x.address(), hx.data(), hx.size()) == 0 &&
               cu.cuMemcpyHtoD(w.address(), hw.data(), hw.size()) == 0;
  for (Tier tier : o.tiers) {
    BenchResult r;
    r.config = base;
    r.config.tier = tier;
    if (!ready)
      r.error = "not enough GPU memory for this configuration";
    else if (tier == Tier::Legacy)
      run_legacy(s.libs, s.handle, r.config, x.get(), w.get(), y.get(), workspace, o.repeats, r);
    else
      run_graph(s.libs, s.handle, r.config, x.get(), w.get(), y.get(), size_t(1) << 30, o.repeats, o.graph_candidates,
                r);
    finish(r, s.device, cu, y.address());
    if (o.on_result) o.on_result(r);
    report.results.push_back(std::move(r));
  }
}

}  // namespace

bool BenchReport::all_correct() const {
  for (const auto& r : results)
    if (r.error.empty() && !r.correct) return false;
  return true;
}

double tolerance_of(DataType t) {
  switch (t) {
    case DataType::Fp32:
      return 1e-5;
    case DataType::Tf32:
      return 2e-3;
    case DataType::Fp16:
      return 2e-3;
    case DataType::Bf16:
      return 1e-2;
  }
  return 0;
}

std::vector<ConvShape> bench_shapes(ShapeSet set, int n) {
  auto conv = [&](std::string name, int batch, int c, int hw, int k, int rs, int stride) {
    return ConvShape{std::move(name), batch, c, hw, hw, k, rs, rs, stride, rs / 2};
  };
  if (set == ShapeSet::Quick)
    return {conv("res2 1x1 256->64 @56", n, 256, 56, 64, 1, 1), conv("res3 3x3 128->128 @28", n, 128, 28, 128, 3, 1),
            conv("large 3x3 256->256 @64", n, 256, 64, 256, 3, 1)};
  return {conv("conv1 7x7/2 3->64 @224", n, 3, 224, 64, 7, 2),
          conv("res2 1x1 64->64 @56", n, 64, 56, 64, 1, 1),
          conv("res2 3x3 64->64 @56", n, 64, 56, 64, 3, 1),
          conv("res2 1x1 64->256 @56", n, 64, 56, 256, 1, 1),
          conv("res2 1x1 256->64 @56", n, 256, 56, 64, 1, 1),
          conv("res3 3x3 128->128 @28", n, 128, 28, 128, 3, 1),
          conv("res3 1x1 128->512 @28", n, 128, 28, 512, 1, 1),
          conv("res3 1x1 512->128 @28", n, 512, 28, 128, 1, 1),
          conv("res4 3x3 256->256 @14", n, 256, 14, 256, 3, 1),
          conv("res4 1x1 256->1024 @14", n, 256, 14, 1024, 1, 1),
          conv("res4 1x1 1024->256 @14", n, 1024, 14, 256, 1, 1),
          conv("res5 3x3 512->512 @7", n, 512, 7, 512, 3, 1),
          conv("res5 1x1 512->2048 @7", n, 512, 7, 2048, 1, 1),
          conv("res5 1x1 2048->512 @7", n, 2048, 7, 512, 1, 1),
          conv("large 3x3 256->256 @64 (N64)", 64, 256, 64, 256, 3, 1)};
}

Result<BenchReport> run_benchmark(const std::filesystem::path& cudnn_library, const BenchOptions& o) {
  Session s;
  auto libs = load_libraries(cudnn_library);
  if (!libs) return std::unexpected(libs.error());
  s.libs = *libs;
  if (auto ok = open_gpu(s); !ok) return std::unexpected(ok.error());
  BenchReport report;
  report.device = s.device;
  report.library = cudnn_library.string();
  report.cudnn_version = static_cast<long>(s.libs.dnn.GetVersion());
  {
    DeviceBuffer workspace(s.libs.cu, size_t(1) << 30);
    for (const auto& shape : bench_shapes(o.shapes, o.batch))
      for (DataType dt : o.dtypes)
        for (Layout layout : o.layouts)
          run_config(s, BenchConfig{shape, dt, layout, Tier::Legacy}, o, workspace, report);
  }
  s.libs.dnn.Destroy(s.handle);
  return report;
}

}  // namespace cudnn_install
