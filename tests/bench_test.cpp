// The parts of the benchmark that need no GPU: number formats, test data, shapes, errors.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "bench_api.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::gpu;

TEST(BenchData, InputsAreExactInEveryDataType) {
  for (std::uint64_t i = 0; i < 5000; ++i) {
    float v = input_value(i, 1);
    ASSERT_GE(v, -1.0f);
    ASSERT_LE(v, 1.0f);
    EXPECT_EQ(v * 8, std::round(v * 8));
    EXPECT_EQ(from_half_bits(to_half_bits(v)), v);
    EXPECT_EQ(from_bf16_bits(to_bf16_bits(v)), v);
  }
  EXPECT_NE(input_value(1, 1), input_value(1, 2));
}

TEST(BenchData, KnownBitPatterns) {
  EXPECT_EQ(to_half_bits(1.0f), 0x3C00);
  EXPECT_EQ(to_half_bits(-0.125f), 0xB000);
  EXPECT_EQ(to_half_bits(65504.0f), 0x7BFF);
  EXPECT_EQ(to_bf16_bits(1.0f), 0x3F80);
  EXPECT_EQ(to_bf16_bits(-2.0f), 0xC000);
  EXPECT_FLOAT_EQ(from_half_bits(0x3555), 0.333251953125f);
  EXPECT_EQ(to_half_bits(1.0f + 1.0f / 4096), 0x3C00);  // rounds to nearest even
}

TEST(BenchShapes, ResNet50Layers) {
  auto shapes = bench_shapes(ShapeSet::ResNet50, 128);
  ASSERT_EQ(shapes.size(), 15u);
  EXPECT_EQ(shapes[0].p(), 112);  // conv1 7x7/2 on 224
  EXPECT_EQ(shapes[0].pad, 3);
  EXPECT_EQ(shapes.back().n, 64);  // the large 3x3 keeps N64
  const ConvShape& res3 = shapes[5];
  EXPECT_EQ(res3.name, "res3 3x3 128->128 @28");
  EXPECT_DOUBLE_EQ(res3.flops(), 2.0 * 128 * 128 * 28 * 28 * 128 * 9);
  EXPECT_EQ(bench_shapes(ShapeSet::Quick, 16).size(), 3u);
  EXPECT_DOUBLE_EQ(tolerance_of(DataType::Bf16), 1e-2);
}

TEST(Bench, WithoutADriverItSaysSo) {
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW)) {
    dlclose(cuda);
    GTEST_SKIP() << "this machine has an NVIDIA driver";
  }
  auto report = run_benchmark("/nonexistent/libcudnn.so.9", {});
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("no NVIDIA driver"), std::string::npos);
}

TEST(Bench, CliRejectsUnknownDataTypes) {
  std::string out;
  EXPECT_EQ(test::run_command(std::string(CLI_PATH) + " bench --dtypes fp8", &out), 1);
  EXPECT_NE(out.find("unknown data type 'fp8': use fp32, tf32, fp16, bf16"), std::string::npos) << out;
}
