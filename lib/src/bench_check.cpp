// The inputs of a configuration, and the numerical check: ~256 sampled outputs compared with a
// double-precision CPU reference that recomputes the exact inputs from their logical index.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "bench_api.hpp"

namespace cudnn_install::gpu {
namespace {

constexpr std::uint64_t kSeedX = 1, kSeedW = 2;
constexpr int kCheckedPoints = 256;

// Logical NCHW (or KCRS) index of a physical offset in `layout`.
std::uint64_t logical_index(std::uint64_t o, Layout layout, std::uint64_t c, std::uint64_t h, std::uint64_t w) {
  if (layout == Layout::Nchw) return o;
  std::uint64_t ci = o % c, wi = (o / c) % w, hi = (o / c / w) % h, ni = o / c / w / h;
  return ((ni * c + ci) * h + hi) * w + wi;
}

void store(std::uint8_t* bytes, std::uint64_t offset, DataType t, float v) {
  if (t == DataType::Fp16 || t == DataType::Bf16) {
    std::uint16_t bits = t == DataType::Fp16 ? to_half_bits(v) : to_bf16_bits(v);
    std::memcpy(bytes + offset * 2, &bits, 2);
  } else {
    std::memcpy(bytes + offset * 4, &v, 4);
  }
}

std::vector<std::uint8_t> exact_tensor(DataType t, Layout layout, std::uint64_t n, std::uint64_t c, std::uint64_t h,
                                       std::uint64_t w, std::uint64_t seed) {
  std::uint64_t count = n * c * h * w;
  std::vector<std::uint8_t> bytes(count * element_size(t));
  for (std::uint64_t o = 0; o < count; ++o)
    store(bytes.data(), o, t, input_value(logical_index(o, layout, c, h, w), seed));
  return bytes;
}

// `count` elements: the pool converted once, then copied over and over from `start`.
std::vector<std::uint8_t> tiled_tensor(DataType t, const std::vector<std::uint8_t>& pool, size_t start,
                                       std::uint64_t count) {
  std::vector<std::uint8_t> bytes(count * element_size(t));
  size_t at = 0, from = start % pool.size();
  while (at < bytes.size()) {
    size_t chunk = std::min(pool.size() - from, bytes.size() - at);
    std::memcpy(bytes.data() + at, pool.data() + from, chunk);
    at += chunk;
    from = 0;
  }
  return bytes;
}

float read_output(const Driver& cu, CUdeviceptr y, std::uint64_t offset, DataType t) {
  std::uint8_t raw[4] = {};
  if (cu.cuMemcpyDtoH(raw, y + offset * element_size(t), element_size(t)) != 0) return NAN;
  std::uint16_t bits;
  std::memcpy(&bits, raw, 2);
  if (t == DataType::Fp16) return from_half_bits(bits);
  if (t == DataType::Bf16) return from_bf16_bits(bits);
  float f;
  std::memcpy(&f, raw, 4);
  return f;
}

}  // namespace

HostInputs exact_inputs(const BenchConfig& cfg) {
  const ConvShape& s = cfg.shape;
  return {exact_tensor(cfg.dtype, cfg.layout, s.n, s.c, s.h, s.w, kSeedX),
          exact_tensor(cfg.dtype, cfg.layout, s.k, s.c, s.r, s.s, kSeedW)};
}

HostInputs timing_inputs(const BenchConfig& cfg, const std::vector<float>& values) {
  const ConvShape& s = cfg.shape;
  std::vector<std::uint8_t> pool(values.size() * element_size(cfg.dtype));
  for (size_t i = 0; i < values.size(); ++i) store(pool.data(), i, cfg.dtype, values[i]);
  std::uint64_t x_count = std::uint64_t(s.n) * s.c * s.h * s.w, w_count = std::uint64_t(s.k) * s.c * s.r * s.s;
  return {tiled_tensor(cfg.dtype, pool, 0, x_count), tiled_tensor(cfg.dtype, pool, pool.size() / 2, w_count)};
}

void check_output(const Driver& cu, CUdeviceptr y, BenchResult& result) {
  const BenchConfig& cfg = result.config;
  const ConvShape& s = cfg.shape;
  std::mt19937_64 rng(42);  // NOLINT(bugprone-random-generator-seed): the same points checked in every run
  double worst = 0;
  bool unwritten = false;  // a NaN: the poison the output was filled with, or a broken kernel
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
    if (std::isnan(err))
      unwritten = true;
    else
      worst = std::max(worst, err);
  }
  result.checked_points = kCheckedPoints;
  result.max_error = unwritten ? NAN : worst;
  result.tolerance = tolerance_of(cfg.dtype);
  result.correct = !unwritten && worst <= result.tolerance;
}

}  // namespace cudnn_install::gpu
