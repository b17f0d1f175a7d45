// The slice of the CUDA driver API and of cuDNN that the benchmark uses, loaded with dlopen.
// Enum values are those of the public cuDNN 9 ABI (cudnn_graph.h, cudnn_cnn.h), declared here so
// that nothing CUDA is needed at build time.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

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
  A_CFG_WORKSPACE = 303,
  A_PLAN_HANDLE = 400,
  A_PLAN_CONFIG = 401,
  A_PLAN_WORKSPACE = 402,
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
  A_ENGINE_INDEX = 1301,
  A_ENGINE_NOTE = 1303,
  HEUR_MODE_A = 3,
  HEUR_MODE_FALLBACK = 2,
  NOTE_TENSOR_CORE = 0,
};

// CUDA driver attribute numbers.
enum : int { ATTR_CLOCK_RATE = 13, ATTR_SM_COUNT = 16, ATTR_CC_MAJOR = 75, ATTR_CC_MINOR = 76 };

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
  void* get() const { return reinterpret_cast<void*>(ptr_); }
  CUdeviceptr address() const { return ptr_; }
  bool ok() const { return ptr_ != 0; }

 private:
  const Driver& cu_;
  CUdeviceptr ptr_ = 0;
};

// Inputs are small multiples of 1/8, exact in every data type, generated from their logical
// (n, c, h, w) index: the CPU reference recomputes them instead of keeping copies.
float input_value(std::uint64_t logical_index, std::uint64_t seed);
std::uint16_t to_half_bits(float f);
std::uint16_t to_bf16_bits(float f);
float from_half_bits(std::uint16_t h);
float from_bf16_bits(std::uint16_t b);
int cudnn_dtype(DataType t);
size_t element_size(DataType t);

// Times `run` (warm-up, then `repeats` timed runs); the median in milliseconds, or <0 on failure.
double median_time_ms(const Driver& cu, int repeats, const std::function<int()>& run);

// One configuration's tier: fills algorithm and median_ms, or error.
void run_legacy(const Libraries& libs, Handle h, const BenchConfig& cfg, void* x, void* w, void* y,
                DeviceBuffer& workspace, int repeats, BenchResult& out);
void run_graph(const Libraries& libs, Handle h, const BenchConfig& cfg, void* x, void* w, void* y,
               size_t workspace_limit, int repeats, int candidates, BenchResult& out);

}  // namespace cudnn_install::gpu
