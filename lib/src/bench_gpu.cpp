// Loading the CUDA driver and cuDNN (dynlib.hpp), and device buffers.

#include "base/dynlib.hpp"
#include "bench_api.hpp"

namespace cudnn_install::gpu {
namespace {

using dynlib::bind;

std::string bind_driver(void* lib, Driver& d) {
  std::string m;
  bind(lib, d.cuInit, "cuInit", m);
  bind(lib, d.cuDeviceGet, "cuDeviceGet", m);
  bind(lib, d.cuDeviceGetName, "cuDeviceGetName", m);
  bind(lib, d.cuDeviceGetAttribute, "cuDeviceGetAttribute", m);
  bind(lib, d.cuDeviceTotalMem, "cuDeviceTotalMem_v2", m);
  bind(lib, d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", m);
  bind(lib, d.cuCtxSetCurrent, "cuCtxSetCurrent", m);
  bind(lib, d.cuMemAlloc, "cuMemAlloc_v2", m);
  bind(lib, d.cuMemFree, "cuMemFree_v2", m);
  bind(lib, d.cuMemGetInfo, "cuMemGetInfo_v2", m);
  bind(lib, d.cuMemcpyHtoD, "cuMemcpyHtoD_v2", m);
  bind(lib, d.cuMemcpyDtoH, "cuMemcpyDtoH_v2", m);
  bind(lib, d.cuEventCreate, "cuEventCreate", m);
  bind(lib, d.cuEventRecord, "cuEventRecord", m);
  bind(lib, d.cuEventSynchronize, "cuEventSynchronize", m);
  bind(lib, d.cuEventElapsedTime, "cuEventElapsedTime", m);
  bind(lib, d.cuEventDestroy, "cuEventDestroy_v2", m);
  bind(lib, d.cuCtxSynchronize, "cuCtxSynchronize", m);
  bind(lib, d.cuMemsetD8, "cuMemsetD8_v2", m);
  bind(lib, d.cuStreamCreate, "cuStreamCreate", m);
  bind(lib, d.cuStreamDestroy, "cuStreamDestroy_v2", m);
  bind(lib, d.cuStreamSynchronize, "cuStreamSynchronize", m);
  bind(lib, d.cuStreamBeginCapture, "cuStreamBeginCapture_v2", m);
  bind(lib, d.cuStreamEndCapture, "cuStreamEndCapture", m);
  bind(lib, d.cuGraphInstantiate, "cuGraphInstantiateWithFlags", m);
  bind(lib, d.cuGraphLaunch, "cuGraphLaunch", m);
  bind(lib, d.cuGraphExecDestroy, "cuGraphExecDestroy", m);
  bind(lib, d.cuGraphDestroy, "cuGraphDestroy", m);
  return m;
}

std::string bind_cudnn(void* lib, Cudnn& c) {
  std::string m;
  bind(lib, c.GetVersion, "cudnnGetVersion", m);
  bind(lib, c.GetErrorString, "cudnnGetErrorString", m);
  bind(lib, c.Create, "cudnnCreate", m);
  bind(lib, c.Destroy, "cudnnDestroy", m);
  bind(lib, c.SetStream, "cudnnSetStream", m);
  bind(lib, c.CreateTensorDescriptor, "cudnnCreateTensorDescriptor", m);
  bind(lib, c.SetTensor4dDescriptor, "cudnnSetTensor4dDescriptor", m);
  bind(lib, c.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor", m);
  bind(lib, c.CreateFilterDescriptor, "cudnnCreateFilterDescriptor", m);
  bind(lib, c.SetFilter4dDescriptor, "cudnnSetFilter4dDescriptor", m);
  bind(lib, c.DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor", m);
  bind(lib, c.CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor", m);
  bind(lib, c.SetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor", m);
  bind(lib, c.SetConvolutionMathType, "cudnnSetConvolutionMathType", m);
  bind(lib, c.DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor", m);
  bind(lib, c.FindConvolutionForwardAlgorithmEx, "cudnnFindConvolutionForwardAlgorithmEx", m);
  bind(lib, c.ConvolutionForward, "cudnnConvolutionForward", m);
  bind(lib, c.BackendCreateDescriptor, "cudnnBackendCreateDescriptor", m);
  bind(lib, c.BackendDestroyDescriptor, "cudnnBackendDestroyDescriptor", m);
  bind(lib, c.BackendFinalize, "cudnnBackendFinalize", m);
  bind(lib, c.BackendSetAttribute, "cudnnBackendSetAttribute", m);
  bind(lib, c.BackendGetAttribute, "cudnnBackendGetAttribute", m);
  bind(lib, c.BackendExecute, "cudnnBackendExecute", m);
  return m;
}

}  // namespace

Result<Libraries> load_libraries(const std::filesystem::path& cudnn_library) {
  Libraries libs;
  libs.cuda_handle = dynlib::open_driver();
  if (!libs.cuda_handle)
    return fail(ErrorCode::VerifyFailed, std::string("no NVIDIA driver: ") + dynlib::driver_name() +
                                             " cannot be loaded; the benchmark needs a GPU");
  if (auto missing = bind_driver(libs.cuda_handle, libs.cu); !missing.empty())
    return fail(ErrorCode::VerifyFailed, "the NVIDIA driver lacks " + missing);
  libs.cudnn_handle = dynlib::open(cudnn_library);
  if (!libs.cudnn_handle)
    return fail(ErrorCode::VerifyFailed, "cannot load " + cudnn_library.string() + ": " + dynlib::last_error());
  if (auto missing = bind_cudnn(libs.cudnn_handle, libs.dnn); !missing.empty())
    return fail(ErrorCode::VerifyFailed, cudnn_library.string() + " lacks " + missing);
  return libs;
}

DeviceBuffer::DeviceBuffer(const Driver& cu, size_t bytes) : cu_(cu), bytes_(bytes) {
  if (bytes && cu_.cuMemAlloc(&ptr_, bytes) != 0) ptr_ = 0;
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_) cu_.cuMemFree(ptr_);
}

}  // namespace cudnn_install::gpu
