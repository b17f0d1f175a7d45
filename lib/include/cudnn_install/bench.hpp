// Stage 8: a GPU convolution benchmark of the installed cuDNN, with a numerical check of every
// timed configuration. cuDNN and the CUDA driver are loaded at run time (dlopen), so the tool has
// no link-time dependency on CUDA and needs no CUDA headers.
//
// What is timed is what a training step pays for a convolution: executions issued back to back
// between two events, and the same executions captured in a CUDA graph and replayed; the kernel
// time of a configuration is the faster of the two. One execution per event pair (the single-call
// latency, which also charges the host's per-call cost) is reported beside it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudnn_install/error.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/toolkit.hpp"

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

// How one configuration is timed. A batch is `per_batch` executions between two events.
enum class TimingMethod { SingleCall, BackToBack, CudaGraph };

struct TimingCounts {
  int warmup = 3;      // untimed executions first
  int per_batch = 20;  // executions per event pair (single call: always 1)
  int batches = 10;    // event pairs; min, median and max are over these
  // Then untimed batches until this much GPU time has passed: under sustained load a GPU slows to
  // the clock its power limit allows, and a kernel timed before that looks faster than it runs.
  double warmup_ms = 0;
};

// Per-execution milliseconds over the batches.
struct Spread {
  double min = 0, median = 0, max = 0;
};

struct Timing {
  explicit Timing(TimingMethod m = TimingMethod::BackToBack, TimingCounts c = {}) : method(m), counts(c) {}
  TimingMethod method;
  TimingCounts counts;
  bool measured = false;
  Spread ms;
  std::string note;  // why it was not measured
};

// A finalist of the search: passed the check, then timed with the full counts by both kernel
// methods, in turn with the other finalists, each method after its own warm-up (measure_in_turn).
struct Finalist {
  std::string algorithm;
  std::string source;    // what proposed it: "heuristics mode A", "knob sweep", "cudnnFind", ...
  double search_ms = 0;  // its median in the search
  Timing graph{TimingMethod::CudaGraph};
  Timing back_to_back{TimingMethod::BackToBack};
  bool picked = false;
  const Timing& kernel() const;  // the faster measured of the two
};

// The engine search of one configuration.
struct SearchStats {
  int proposed = 0;  // distinct candidates (after the numerical-note filter)
  int failed = 0;    // could not be finalised or run
  int timed = 0;
  int abandoned = 0;         // far slower than the best so far after one execution
  int rejected = 0;          // failed the numerical check
  double seconds = 0;        // from the first proposal to the checked pick, before its final timing
  double final_seconds = 0;  // of `seconds`: checking the finalists and timing them in turn
  std::vector<Finalist> finalists;
  std::vector<std::pair<std::string, int>> sources;  // "heuristics mode A" -> proposed
};

struct BenchResult {
  BenchConfig config;
  std::string error;      // empty when it ran
  std::string algorithm;  // legacy algo and math type, or graph engine and knob choices
  Timing kernel_graph{TimingMethod::CudaGraph};
  Timing kernel_back_to_back{TimingMethod::BackToBack};
  Timing single_call{TimingMethod::SingleCall};
  SearchStats search;
  double tflops = 0;        // at the kernel time's median
  double peak_percent = 0;  // of the data type's dense peak
  int checked_points = 0;
  double max_error = 0;  // |gpu - ref| / sum|terms|, worst sampled point
  double tolerance = 0;
  bool correct = false;
  // The kernel time: the faster measured of the CUDA graph and the back-to-back timing.
  const Timing& kernel() const;
};

struct DeviceInfo {
  std::string name;
  int sm_count = 0, cc_major = 0, cc_minor = 0, clock_mhz = 0;
  double total_gib = 0;
  double peak_tflops[4] = {};  // dense peak per DataType
  std::string peak_source;     // "datasheet table (...)" or "device attributes (...)"
};

enum class ShapeSet { ResNet50, Quick };
// The values the timed executions read: normally distributed (as training data is), or the exact
// multiples of 1/8 that the numerical check uses (less switching on the GPU: faster, unrealistic).
enum class TimingData { Normal, Exact };
// How far the graph tier searches: the engine configs of heuristics modes A, INSTANT and B and the
// fallback list, and then the knob values next to those of the fastest engines.
enum class SearchDepth { Heuristics, Knobs };

struct BenchOptions {
  std::vector<ConvShape> shapes;  // empty: bench_shapes(ShapeSet::ResNet50, 128)
  std::vector<DataType> dtypes{DataType::Fp16, DataType::Bf16};
  std::vector<Layout> layouts{Layout::Nhwc};
  std::vector<Tier> tiers{Tier::Legacy, Tier::Graph};
  TimingCounts timing{3, 20, 10, 200};   // the reported timing of the pick
  TimingCounts search_timing{2, 10, 3};  // each candidate of the search (after one warm-up as long as timing's)
  // The fastest candidates within finalist_margin of the best search median, at most `finalists`
  // of them, then the fastest of each source not yet among them, are checked and then timed in turn
  // with the full counts (see measure_in_turn); the best median wins.
  int finalists = 4;
  double finalist_margin = 0.05;
  // Before its finalist stage, each result keeps the GPU busy with its fastest finalist for this
  // long, untimed: the numerical check just before leaves the GPU idle, and the timing should start
  // from the sustained load a training step runs under (an idle GPU may boost its clock; whether
  // that flattered the stage is not settled, see bench/results). PyTorch's side
  // (bench/pytorch_conv.py) does the same before its timing.
  double settle_ms = 1000;
  // Before the pick's reported timing, the GPU idles this long and then runs settle_ms of untimed
  // load on the pick: its figure then follows the same history as PyTorch's side with the same
  // PYTORCH_COOL_MS (bench/pytorch_conv.py), instead of seconds of search load against PyTorch's
  // second (a hotter GPU holds a lower clock under the power cap). 0: timed right after the stage.
  double cool_ms = 0;
  SearchDepth search = SearchDepth::Knobs;
  TimingData timing_data = TimingData::Normal;
  std::uint64_t workspace_limit = std::uint64_t(4) << 30;  // bytes, per candidate
};

struct BenchReport {
  DeviceInfo device;
  long cudnn_version = 0;
  std::string library;
  BenchOptions options;
  std::vector<BenchResult> results;
  bool all_correct() const;
};

namespace gpu {
struct Libraries;
}

// Where the cuDNN to benchmark is: a library file, an installed toolkit, or the toolkit that the
// usual search finds (under cuda_root when given).
struct BenchRequest {
  std::optional<std::filesystem::path> library;
  std::optional<Toolkit> toolkit;
  std::optional<std::filesystem::path> cuda_root;
  BenchOptions options;
};

struct BenchServices {
  // Loads the CUDA driver and the cuDNN library (dlopen); tests put a fake GPU here.
  std::function<Result<std::shared_ptr<const gpu::Libraries>>(const std::filesystem::path& cudnn)> load;
  std::shared_ptr<ProcessRunner> processes;           // the toolkit search runs nvcc and nvidia-smi
  std::function<void(const BenchResult&)> on_result;  // progress, may be empty
};
BenchServices system_bench_services();

// Runs every configuration; a configuration that cannot run is a result with an error.
// Fails as a whole only when no cuDNN is found or cuDNN or the GPU cannot be used at all.
Result<BenchReport> bench(const BenchRequest& request, const BenchServices& services);

std::vector<ConvShape> bench_shapes(ShapeSet set, int batch);
BenchOptions quick_bench_options();  // the short run after an install
// The installed main library: lib/libcudnn.so.<major> or bin/cudnn64_<major>.dll.
Result<std::filesystem::path> installed_cudnn_library(const Toolkit& toolkit);
ExitCode bench_exit_code(const BenchReport& report);

double tolerance_of(DataType t);
const char* to_string(DataType t);
const char* to_string(Layout l);
const char* to_string(Tier t);
const char* to_string(TimingMethod m);
const char* to_string(TimingData d);
const char* to_string(SearchDepth d);
nlohmann::json bench_to_json(const BenchReport& report);
nlohmann::json shapes_to_json(const std::vector<ConvShape>& shapes);
std::string render_bench_text(const BenchReport& report);
std::string render_bench_progress(const BenchResult& result);  // one line

}  // namespace cudnn_install
