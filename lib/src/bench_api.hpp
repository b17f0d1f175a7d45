// The slice of the CUDA driver API and of cuDNN that the benchmark uses, loaded with dlopen.
// Enum values are those of the public cuDNN 9 ABI (cudnn_graph.h, cudnn_cnn.h), declared here so
// that nothing CUDA is needed at build time.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cudnn_install/bench.hpp"

namespace cudnn_install::gpu {

using CUdeviceptr = unsigned long long;
using Handle = void*;
using Desc = void*;

struct Driver {
  int (*cuInit)(unsigned) = nullptr;
  int (*cuDeviceGet)(int*, int) = nullptr;
  int (*cuDeviceGetName)(char*, int, int) = nullptr;
  int (*cuDeviceGetAttribute)(int*, int, int) = nullptr;
  int (*cuDeviceTotalMem)(size_t*, int) = nullptr;
  int (*cuDevicePrimaryCtxRetain)(void**, int) = nullptr;
  int (*cuCtxSetCurrent)(void*) = nullptr;
  int (*cuMemAlloc)(CUdeviceptr*, size_t) = nullptr;
  int (*cuMemFree)(CUdeviceptr) = nullptr;
  int (*cuMemGetInfo)(size_t*, size_t*) = nullptr;
  int (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t) = nullptr;
  int (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t) = nullptr;
  int (*cuEventCreate)(void**, unsigned) = nullptr;
  int (*cuEventRecord)(void*, void*) = nullptr;
  int (*cuEventSynchronize)(void*) = nullptr;
  int (*cuEventElapsedTime)(float*, void*, void*) = nullptr;
  int (*cuEventDestroy)(void*) = nullptr;
  int (*cuCtxSynchronize)() = nullptr;
  int (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t) = nullptr;
  int (*cuStreamCreate)(void**, unsigned) = nullptr;
  int (*cuStreamDestroy)(void*) = nullptr;
  int (*cuStreamSynchronize)(void*) = nullptr;
  int (*cuStreamBeginCapture)(void*, int mode) = nullptr;
  int (*cuStreamEndCapture)(void*, void** graph) = nullptr;
  int (*cuGraphInstantiate)(void** exec, void* graph, unsigned long long flags) = nullptr;
  int (*cuGraphLaunch)(void* exec, void* stream) = nullptr;
  int (*cuGraphExecDestroy)(void*) = nullptr;
  int (*cuGraphDestroy)(void*) = nullptr;
};

struct PerfResult {  // cudnnConvolutionFwdAlgoPerf_t
  int algo;
  int status;
  float time;
  size_t memory;
  int determinism;
  int math_type;
  int reserved[3];
};

struct Cudnn {
  size_t (*GetVersion)() = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
  int (*Create)(Handle*) = nullptr;
  int (*Destroy)(Handle) = nullptr;
  int (*SetStream)(Handle, void* stream) = nullptr;
  // legacy convolution API
  int (*CreateTensorDescriptor)(Desc*) = nullptr;
  int (*SetTensor4dDescriptor)(Desc, int format, int dtype, int n, int c, int h, int w) = nullptr;
  int (*DestroyTensorDescriptor)(Desc) = nullptr;
  int (*CreateFilterDescriptor)(Desc*) = nullptr;
  int (*SetFilter4dDescriptor)(Desc, int dtype, int format, int k, int c, int h, int w) = nullptr;
  int (*DestroyFilterDescriptor)(Desc) = nullptr;
  int (*CreateConvolutionDescriptor)(Desc*) = nullptr;
  int (*SetConvolution2dDescriptor)(Desc, int, int, int, int, int, int, int mode, int compute) = nullptr;
  int (*SetConvolutionMathType)(Desc, int) = nullptr;
  int (*DestroyConvolutionDescriptor)(Desc) = nullptr;
  int (*FindConvolutionForwardAlgorithmEx)(Handle, Desc, const void*, Desc, const void*, Desc, Desc, void*, int, int*,
                                           PerfResult*, void*, size_t) = nullptr;
  int (*ConvolutionForward)(Handle, const void*, Desc, const void*, Desc, const void*, Desc, int, void*, size_t,
                            const void*, Desc, void*) = nullptr;
  // backend (graph) API
  int (*BackendCreateDescriptor)(int, Desc*) = nullptr;
  int (*BackendDestroyDescriptor)(Desc) = nullptr;
  int (*BackendFinalize)(Desc) = nullptr;
  int (*BackendSetAttribute)(Desc, int, int, int64_t, const void*) = nullptr;
  int (*BackendGetAttribute)(Desc, int, int, int64_t, int64_t*, void*) = nullptr;
  int (*BackendExecute)(Handle, Desc, Desc) = nullptr;
};

// cuDNN enum values used here.
enum : int {
  DATA_FLOAT = 0,
  DATA_HALF = 2,
  DATA_BFLOAT16 = 9,
  TENSOR_NCHW = 0,
  TENSOR_NHWC = 1,
  CROSS_CORRELATION = 1,
  DEFAULT_MATH = 0,
  TENSOR_OP_MATH = 1,
  FMA_MATH = 3,
  // backend descriptor types
  BK_CONVOLUTION = 1,
  BK_ENGINE = 2,
  BK_ENGINECFG = 3,
  BK_ENGINEHEUR = 4,
  BK_EXECUTION_PLAN = 5,
  BK_KNOB_CHOICE = 7,
  BK_KNOB_INFO = 8,
  BK_OP_CONV_FWD = 10,
  BK_OPERATIONGRAPH = 15,
  BK_VARIANT_PACK = 16,
  BK_TENSOR = 17,
  // attribute types
  T_HANDLE = 0,
  T_DATA_TYPE = 1,
  T_INT64 = 3,
  T_FLOAT = 4,
  T_VOID_PTR = 6,
  T_CONV_MODE = 7,
  T_HEUR_MODE = 8,
  T_KNOB_TYPE = 9,
  T_NUMERICAL_NOTE = 11,
  T_BACKEND_DESCRIPTOR = 15,
  // attributes
  A_CONV_COMP_TYPE = 100,
  A_CONV_MODE = 101,
  A_CONV_DILATIONS = 102,
  A_CONV_STRIDES = 103,
  A_CONV_POST_PAD = 104,
  A_CONV_PRE_PAD = 105,
  A_CONV_SPATIAL_DIMS = 106,
  A_HEUR_MODE = 200,
  A_HEUR_GRAPH = 201,
  A_HEUR_RESULTS = 202,
  A_CFG_ENGINE = 300,
  A_CFG_KNOB_CHOICES = 302,
  A_CFG_WORKSPACE = 303,
  A_PLAN_HANDLE = 400,
  A_PLAN_CONFIG = 401,
  A_PLAN_WORKSPACE = 402,
  A_KNOB_CHOICE_TYPE = 600,
  A_KNOB_CHOICE_VALUE = 601,
  A_OP_ALPHA = 700,
  A_OP_BETA = 701,
  A_OP_CONV = 702,
  A_OP_W = 703,
  A_OP_X = 704,
  A_OP_Y = 705,
  A_GRAPH_HANDLE = 800,
  A_GRAPH_OPS = 801,
  A_TENSOR_ALIGN = 900,
  A_TENSOR_DTYPE = 901,
  A_TENSOR_DIMS = 902,
  A_TENSOR_STRIDES = 903,
  A_TENSOR_UID = 906,
  A_VP_UIDS = 1000,
  A_VP_POINTERS = 1001,
  A_VP_WORKSPACE = 1003,
  A_KNOB_INFO_TYPE = 1200,
  A_KNOB_INFO_MAX = 1201,
  A_KNOB_INFO_MIN = 1202,
  A_KNOB_INFO_STRIDE = 1203,
  A_ENGINE_GRAPH = 1300,
  A_ENGINE_INDEX = 1301,
  A_ENGINE_KNOB_INFO = 1302,
  A_ENGINE_NOTE = 1303,
  HEUR_MODE_INSTANT = 0,
  HEUR_MODE_B = 1,
  HEUR_MODE_FALLBACK = 2,
  HEUR_MODE_A = 3,
  NOTE_TENSOR_CORE = 0,
  NOTE_DOWN_CONVERT_INPUTS = 1,
  KNOB_SLOTS = 64,  // more than CUDNN_KNOB_TYPE_COUNTS (44 in 9.19): room for the knobs of newer releases
};

// CUDA driver attribute numbers and constants.
enum : int { ATTR_CLOCK_RATE = 13, ATTR_SM_COUNT = 16, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 };
enum : int { CAPTURE_MODE_THREAD_LOCAL = 1 };

struct Libraries {
  Driver cu;
  Cudnn dnn;
  void* cuda_handle = nullptr;
  void* cudnn_handle = nullptr;
};

// Loads both libraries and every symbol; the error says which one is missing.
Result<Libraries> load_libraries(const std::filesystem::path& cudnn_library);

// Device buffers freed on scope exit.
class DeviceBuffer {
 public:
  DeviceBuffer(const Driver& cu, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a device address, which cuDNN takes as a pointer
  void* get() const { return reinterpret_cast<void*>(ptr_); }
  CUdeviceptr address() const { return ptr_; }
  bool ok() const { return ptr_ != 0; }
  size_t size() const { return ptr_ ? bytes_ : 0; }

 private:
  const Driver& cu_;
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

// What every tier works with: the libraries, the cuDNN handle, the one stream all work is issued
// to (a created stream: the legacy default stream cannot be captured into a CUDA graph), and one
// workspace shared by every candidate.
struct Gpu {
  const Libraries& libs;
  Handle handle = nullptr;
  void* stream = nullptr;
  DeviceBuffer& workspace;
};

// Inputs are small multiples of 1/8, exact in every data type, generated from their logical
// (n, c, h, w) index: the CPU reference recomputes them instead of keeping copies.
float input_value(std::uint64_t logical_index, std::uint64_t seed);
// Normally distributed values, as the timed executions read them (see TimingData).
std::vector<float> normal_values(size_t count, std::uint64_t seed);
std::uint16_t to_half_bits(float f);
std::uint16_t to_bf16_bits(float f);
float from_half_bits(std::uint16_t h);
float from_bf16_bits(std::uint16_t b);
int cudnn_dtype(DataType t);
size_t element_size(DataType t);

// The inputs of one configuration on the host, in the layout of the configuration (bench_check.cpp).
struct HostInputs {
  std::vector<std::uint8_t> x, w;
};
// The check's inputs: input_value() of each element's logical index.
HostInputs exact_inputs(const BenchConfig& cfg);
// The timing inputs: `pool` (normal_values) in the data type, repeated.
HostInputs timing_inputs(const BenchConfig& cfg, const std::vector<float>& pool);
// Compares sampled outputs in `y` with the double-precision CPU reference of exact_inputs(); fills
// checked_points, max_error, tolerance and correct.
void check_output(const Driver& cu, CUdeviceptr y, BenchResult& result);

// One execution on the bench stream; 0 on success, else the library's status.
using Execute = std::function<int()>;

// Times `run` by `method` with `counts` (bench_timing.cpp). Not measured, with a note, when an
// execution fails or the executions cannot be captured into a CUDA graph.
Timing measure(const Driver& cu, void* stream, TimingMethod method, const TimingCounts& counts, const Execute& run);
// The finalists' kernel timings (bench_timing.cpp), each run timed by both methods as measure()
// times the pick, in two rounds of half the batches after half the warm-up: every run in turn,
// forward in the first round and backward in the second, so that a drift of the GPU's clock or
// temperature over the stage hits every run alike. Each phase (one run, one method) warms up on
// its own: a batch that follows lighter work (a host-bound back-to-back batch, another run) starts
// at a higher clock than this load sustains, and timed that way a run looks faster than it runs.
struct KernelTimings {
  Timing graph{TimingMethod::CudaGraph};
  Timing back_to_back{TimingMethod::BackToBack};
};
std::vector<KernelTimings> measure_in_turn(const Driver& cu, void* stream, const TimingCounts& counts,
                                           const std::vector<Execute>& runs);
// The faster measured of a CUDA graph and a back-to-back timing (the back-to-back one if neither is).
const Timing& faster_of(const Timing& graph, const Timing& back_to_back);
// Keeps the GPU busy with batches of `per_batch` executions of `run` issued back to back until
// `ms` of GPU time have passed, untimed (bench_timing.cpp); 0, or the status of a failed execution.
int keep_busy(const Driver& cu, void* stream, double ms, int per_batch, const Execute& run);
// Milliseconds of one execution, timed alone after one untimed execution; <0 when it fails.
double time_once(const Driver& cu, void* stream, const Execute& run);
Spread spread_of(std::vector<double> samples);

// One way to run a configuration, proposed by a tier's search.
struct Candidate {
  Candidate(std::string l, std::string s, Execute r) : label(std::move(l)), source(std::move(s)), run(std::move(r)) {}
  std::string label;   // "engine 62 tile_size=3" or "algo 1 (tensor op)"
  std::string source;  // "heuristics mode A", "knob sweep", "cudnnFind", ...
  Execute run;
  double search_ms = -1;  // median of the search timing
};

// What the search needs from the configuration's owner (bench.cpp).
struct CheckHooks {
  std::function<bool(TimingData)> use_data;  // uploads timing or exact inputs; false on failure
  // Poisons the output, runs once, compares sampled outputs with the CPU reference.
  std::function<void(const Execute&, BenchResult&)> check;
};

// The search of one configuration (bench_search.cpp): candidates are timed as they are added,
// each after one execution that abandons those far slower than the best so far; finish() checks
// the fastest few, times those that pass in turn with the full counts, keeps the best median
// and times it by every method.
class Search {
 public:
  Search(const Gpu& gpu, const BenchOptions& options, SearchStats& stats);
  void add(Candidate candidate);
  void count_failed(const std::string& source);  // proposed, but could not be prepared
  // The fastest `n` candidates timed so far, fastest first; valid until the next add().
  std::vector<const Candidate*> fastest(size_t n) const;
  void finish(const CheckHooks& hooks, BenchResult& out);

 private:
  void note_source(const std::string& source);
  struct Checked {
    Candidate* candidate;
    BenchResult check;  // checked_points, max_error, tolerance, correct
  };
  std::vector<Checked> check_finalists(const CheckHooks& hooks, const BenchConfig& config);
  const Checked* time_finalists(const std::vector<Checked>& finalists);
  const Gpu& gpu_;
  const BenchOptions& options_;
  SearchStats& stats_;
  std::chrono::steady_clock::time_point start_;
  std::vector<Candidate> candidates_;
  double best_ms_ = -1;
};

// The device buffers of one configuration.
struct Operands {
  void* x = nullptr;
  void* w = nullptr;
  void* y = nullptr;
};

// A tier's descriptors and plans, kept alive until its search has finished.
using TierState = std::shared_ptr<void>;

// One configuration's tier proposes its candidates to the search; `error` says why none could be.
TierState search_legacy(const Gpu& gpu, const BenchConfig& cfg, const Operands& io, Search& search, std::string& error);
TierState search_graph(const Gpu& gpu, const BenchConfig& cfg, const BenchOptions& options, const Operands& io,
                       Search& search, std::string& error);

}  // namespace cudnn_install::gpu
