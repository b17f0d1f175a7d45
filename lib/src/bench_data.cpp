// Test data and number formats for the benchmark's timing and numerical check.
#include <cmath>
#include <cstring>
#include <random>

#include "bench_api.hpp"

namespace cudnn_install::gpu {

float input_value(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + seed;  // splitmix64
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(static_cast<int>(z % 17) - 8) / 8.0f;  // -1 .. 1 in steps of 1/8
}

std::vector<float> normal_values(size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(count);
  for (float& v : values) v = normal(rng);
  return values;
}

std::uint16_t to_bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7FFF + ((u >> 16) & 1);  // round to nearest even
  return static_cast<std::uint16_t>(u >> 16);
}

float from_bf16_bits(std::uint16_t b) {
  std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// IEEE half, for the values used here (normal numbers and zero); rounds to nearest even.
std::uint16_t to_half_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  std::uint16_t sign = static_cast<std::uint16_t>((u >> 16) & 0x8000);
  int exp = static_cast<int>((u >> 23) & 0xFF) - 127 + 15;
  std::uint32_t mant = u & 0x7FFFFF;
  if ((u & 0x7FFFFFFF) == 0) return sign;
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7C00);
  if (exp <= 0) return sign;  // flush tiny values: never produced by input_value
  std::uint32_t half = (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  std::uint32_t rest = mant & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;
  return static_cast<std::uint16_t>(sign | half);
}

float from_half_bits(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  int exp = (h >> 10) & 0x1F;
  std::uint32_t mant = h & 0x3FF;
  std::uint32_t u;
  if (exp == 0 && mant == 0)
    u = sign;
  else if (exp == 0) {  // subnormal
    float f = static_cast<float>(mant) / 1024.0f / 16384.0f;
    return sign ? -f : f;
  } else if (exp == 31)
    u = sign | 0x7F800000 | (mant << 13);
  else
    u = sign | (static_cast<std::uint32_t>(exp - 15 + 127) << 23) | (mant << 13);
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

int cudnn_dtype(DataType t) {
  switch (t) {
    case DataType::Fp16:
      return DATA_HALF;
    case DataType::Bf16:
      return DATA_BFLOAT16;
    default:
      return DATA_FLOAT;
  }
}

size_t element_size(DataType t) { return t == DataType::Fp16 || t == DataType::Bf16 ? 2 : 4; }

}  // namespace cudnn_install::gpu
