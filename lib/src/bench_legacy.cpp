// Tier 1: the legacy convolution API. cudnnFindConvolutionForwardAlgorithmEx tries every
// algorithm on the real buffers (with a large workspace: less makes it fall back to slow ones),
// then the fastest is re-timed on its own.
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

}  // namespace

void run_legacy(const Libraries& libs, Handle h, const BenchConfig& cfg, void* x, void* w, void* y,
                DeviceBuffer& workspace, int repeats, BenchResult& out) {
  const Cudnn& dnn = libs.dnn;
  LegacyDescriptors d(dnn);
  if (int rc = describe(dnn, d, cfg); rc != 0) {
    out.error = std::string("descriptor: ") + dnn.GetErrorString(rc);
    return;
  }
  PerfResult perf[16] = {};
  int found = 0;
  size_t ws_bytes = workspace.ok() ? static_cast<size_t>(1) << 30 : 0;
  int rc = dnn.FindConvolutionForwardAlgorithmEx(h, d.x, x, d.w, w, d.conv, d.y, y, 16, &found, perf, workspace.get(),
                                                 ws_bytes);
  if (rc != 0 || found == 0 || perf[0].status != 0) {
    out.error = std::string("no algorithm: ") + dnn.GetErrorString(rc != 0 ? rc : perf[0].status);
    return;
  }
  const PerfResult& best = perf[0];  // sorted fastest first
  float alpha = 1.0f, beta = 0.0f;
  out.median_ms = median_time_ms(libs.cu, repeats, [&] {
    return dnn.ConvolutionForward(h, &alpha, d.x, x, d.w, w, d.conv, best.algo, workspace.get(), best.memory, &beta,
                                  d.y, y);
  });
  out.algorithm = "algo " + std::to_string(best.algo) + (best.math_type == TENSOR_OP_MATH ? " (tensor op)" : "");
  if (out.median_ms < 0) out.error = "cudnnConvolutionForward failed";
}

}  // namespace cudnn_install::gpu
