// Tier 1: the legacy convolution API. cudnnFindConvolutionForwardAlgorithmEx tries every
// algorithm on the real buffers (with the shared workspace: less makes it fall back to slow ones);
// each algorithm it could run is a candidate of the search, run with the math type Find used.
#include <array>
#include <memory>
#include <string>

#include "bench_api.hpp"

namespace cudnn_install::gpu {
namespace {

struct LegacyDescriptors {
  const Cudnn& dnn;
  Desc x = nullptr, w = nullptr, y = nullptr, conv = nullptr;
  explicit LegacyDescriptors(const Cudnn& d) : dnn(d) {
    dnn.CreateTensorDescriptor(&x);
    dnn.CreateTensorDescriptor(&y);
    dnn.CreateFilterDescriptor(&w);
    dnn.CreateConvolutionDescriptor(&conv);
  }
  ~LegacyDescriptors() {
    dnn.DestroyTensorDescriptor(x);
    dnn.DestroyTensorDescriptor(y);
    dnn.DestroyFilterDescriptor(w);
    dnn.DestroyConvolutionDescriptor(conv);
  }
  LegacyDescriptors(const LegacyDescriptors&) = delete;
  LegacyDescriptors& operator=(const LegacyDescriptors&) = delete;
};

int math_type_of(DataType t) {
  switch (t) {
    case DataType::Fp32:
      return FMA_MATH;  // no tensor cores: true FP32
    case DataType::Tf32:
      return DEFAULT_MATH;  // FP32 data, TF32 tensor cores allowed
    default:
      return TENSOR_OP_MATH;
  }
}

int describe(const Cudnn& dnn, const LegacyDescriptors& d, const BenchConfig& cfg) {
  const ConvShape& s = cfg.shape;
  int fmt = cfg.layout == Layout::Nhwc ? TENSOR_NHWC : TENSOR_NCHW;
  int dt = cudnn_dtype(cfg.dtype);
  int rc = dnn.SetTensor4dDescriptor(d.x, fmt, dt, s.n, s.c, s.h, s.w);
  if (rc == 0) rc = dnn.SetTensor4dDescriptor(d.y, fmt, dt, s.n, s.k, s.p(), s.q());
  if (rc == 0) rc = dnn.SetFilter4dDescriptor(d.w, dt, fmt, s.k, s.c, s.r, s.s);
  if (rc == 0)
    rc = dnn.SetConvolution2dDescriptor(d.conv, s.pad, s.pad, s.stride, s.stride, 1, 1, CROSS_CORRELATION, DATA_FLOAT);
  if (rc == 0) rc = dnn.SetConvolutionMathType(d.conv, math_type_of(cfg.dtype));
  return rc;
}

std::string label_of(const PerfResult& perf) {
  return "algo " + std::to_string(perf.algo) + (perf.math_type == TENSOR_OP_MATH ? " (tensor op)" : "");
}

}  // namespace

TierState search_legacy(const Gpu& gpu, const BenchConfig& cfg, const Operands& io, Search& search,
                        std::string& error) {
  const Cudnn& dnn = gpu.libs.dnn;
  auto d = std::make_shared<LegacyDescriptors>(dnn);
  if (int rc = describe(dnn, *d, cfg); rc != 0) {
    error = std::string("descriptor: ") + dnn.GetErrorString(rc);
    return d;
  }
  std::array<PerfResult, 16> perf{};
  int found = 0;
  int rc = dnn.FindConvolutionForwardAlgorithmEx(gpu.handle, d->x, io.x, d->w, io.w, d->conv, d->y, io.y,
                                                 static_cast<int>(perf.size()), &found, perf.data(),
                                                 gpu.workspace.get(), gpu.workspace.size());
  if (rc != 0) {
    error = std::string("cudnnFindConvolutionForwardAlgorithmEx: ") + dnn.GetErrorString(rc);
    return d;
  }
  for (int i = 0; i < found && i < static_cast<int>(perf.size()); ++i) {
    const PerfResult p = perf[static_cast<size_t>(i)];
    if (p.status != 0 || p.memory > gpu.workspace.size()) {
      search.count_failed("cudnnFind");
      continue;
    }
    void* ws = gpu.workspace.get();
    Handle h = gpu.handle;
    const LegacyDescriptors* desc = d.get();
    search.add({label_of(p), "cudnnFind", [&dnn, h, desc, io, p, ws] {
                  static constexpr float alpha = 1.0f, beta = 0.0f;
                  int status = dnn.SetConvolutionMathType(desc->conv, p.math_type);
                  if (status != 0) return status;
                  return dnn.ConvolutionForward(h, &alpha, desc->x, io.x, desc->w, io.w, desc->conv, p.algo, ws,
                                                p.memory, &beta, desc->y, io.y);
                }});
  }
  return d;
}

}  // namespace cudnn_install::gpu
