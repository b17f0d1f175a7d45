// Stage 8: a GPU convolution benchmark of the installed cuDNN, with a numerical check of every
// timed configuration. cuDNN and the CUDA driver are loaded at run time (dlopen), so the tool has
// no link-time dependency on CUDA and needs no CUDA headers.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

enum class DataType { Fp32, Tf32, Fp16, Bf16 };
enum class Layout { Nchw, Nhwc };
enum class Tier { Legacy, Graph };  // cudnnFindConvolutionForwardAlgorithmEx, or the backend graph API

struct ConvShape {
  std::string name;  // "res3 3x3 128->128 @28"
  int n = 0, c = 0, h = 0, w = 0, k = 0, r = 0, s = 0, stride = 1, pad = 0;
  int p() const { return (h + 2 * pad - r) / stride + 1; }
  int q() const { return (w + 2 * pad - s) / stride + 1; }
  double flops() const { return 2.0 * n * k * p() * q() * c * r * s; }
};

struct BenchConfig {
  ConvShape shape;
  DataType dtype = DataType::Fp16;
  Layout layout = Layout::Nhwc;
  Tier tier = Tier::Graph;
};

struct BenchResult {
  BenchConfig config;
  std::string error;  // empty when it ran
  double median_ms = 0;
  double tflops = 0;
  double peak_percent = 0;
  std::string algorithm;  // legacy algo number or graph engine
  int checked_points = 0;
  double max_error = 0;  // |gpu - ref| / sum|terms|, worst sampled point
  double tolerance = 0;
  bool correct = false;
};

struct DeviceInfo {
  std::string name;
  int sm_count = 0, cc_major = 0, cc_minor = 0, clock_mhz = 0;
  double total_gib = 0;
  double peak_tflops[4] = {};  // dense peak per DataType
  std::string peak_source;     // "datasheet table (...)" or "device attributes (...)"
};

struct BenchReport {
  DeviceInfo device;
  long cudnn_version = 0;
  std::string library;
  std::vector<BenchResult> results;
  bool all_correct() const;
};

enum class ShapeSet { ResNet50, Quick };

struct BenchOptions {
  int batch = 128;
  ShapeSet shapes = ShapeSet::ResNet50;
  std::vector<DataType> dtypes{DataType::Fp16, DataType::Bf16};
  std::vector<Layout> layouts{Layout::Nhwc};
  std::vector<Tier> tiers{Tier::Legacy, Tier::Graph};
  int repeats = 20;
  int graph_candidates = 12;                          // top heuristic engine configs tried per configuration
  std::function<void(const BenchResult&)> on_result;  // progress
};

std::vector<ConvShape> bench_shapes(ShapeSet set, int batch);
// Runs every configuration; a configuration that cannot run is a result with an error.
// Fails as a whole only when cuDNN or the GPU cannot be used at all.
Result<BenchReport> run_benchmark(const std::filesystem::path& cudnn_library, const BenchOptions& options);

double tolerance_of(DataType t);
const char* to_string(DataType t);
const char* to_string(Layout l);
const char* to_string(Tier t);
nlohmann::json bench_to_json(const BenchReport& report);
nlohmann::json shapes_to_json(const std::vector<ConvShape>& shapes);
std::string render_bench_text(const BenchReport& report);

}  // namespace cudnn_install
