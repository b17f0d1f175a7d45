// The runtime probe's own work, run inside the child process: load the installed library by
// absolute path, ask its version, and use the GPU when a driver is there. Signatures are declared
// here so that no CUDA or cuDNN header is needed to build or run.
#include "cudnn_install/verify.hpp"
#include "dynlib.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

using GetVersionFn = size_t (*)();
using ErrorStringFn = const char* (*)(int);
using CreateFn = int (*)(void**);
using DestroyFn = int (*)(void*);
using CuInitFn = int (*)(unsigned);
using CuCountFn = int (*)(int*);
using CuDriverVersionFn = int (*)(int*);
using CuNameFn = int (*)(char*, int, int);

template <class Fn>
Fn symbol(void* lib, const char* name) {
  return dynlib::function<Fn>(lib, name);
}

// The driver API only: cuInit, a device, its name. No CUDA runtime is linked.
void probe_gpu(void* cudnn, ProbeResult& r) {
  void* cuda = dynlib::open_driver();
  if (!cuda) {
    r.gpu = ProbeResult::Gpu::NoDriver;
    r.gpu_detail = std::string("no NVIDIA driver: ") + dynlib::driver_name() + " not found";
    return;
  }
  auto cu_init = symbol<CuInitFn>(cuda, "cuInit");
  auto cu_count = symbol<CuCountFn>(cuda, "cuDeviceGetCount");
  if (auto v = symbol<CuDriverVersionFn>(cuda, "cuDriverGetVersion")) v(&r.driver_version);
  int count = 0;
  if (!cu_init || !cu_count || cu_init(0) != 0 || cu_count(&count) != 0 || count == 0) {
    r.gpu = ProbeResult::Gpu::NoDevice;
    r.gpu_detail = "the NVIDIA driver is present but no GPU is usable (cuInit failed or no device)";
    return;
  }
  char name[256] = {};
  if (auto cu_name = symbol<CuNameFn>(cuda, "cuDeviceGetName")) cu_name(name, sizeof name, 0);
  auto create = symbol<CreateFn>(cudnn, "cudnnCreate");
  auto destroy = symbol<DestroyFn>(cudnn, "cudnnDestroy");
  void* handle = nullptr;
  int status = create ? create(&handle) : -1;
  if (status != 0) {
    auto err = symbol<ErrorStringFn>(cudnn, "cudnnGetErrorString");
    r.gpu = ProbeResult::Gpu::Failed;
    r.gpu_detail = std::string("cudnnCreate failed on ") + name + ": " + (err ? err(status) : "unknown status");
    return;
  }
  destroy(handle);
  r.gpu = ProbeResult::Gpu::Used;
  r.gpu_detail = name;
}

}  // namespace

ProbeResult probe_library(const fs::path& library) {
  ProbeResult r;
  void* lib = dynlib::open(library);
  if (!lib) {
    r.load = ProbeResult::Load::Failed;
    r.detail = dynlib::last_error();
    return r;
  }
  auto get_version = symbol<GetVersionFn>(lib, "cudnnGetVersion");
  if (!get_version) {
    r.load = ProbeResult::Load::Failed;
    r.detail = "cudnnGetVersion is not exported: this is not a cuDNN library";
    return r;
  }
  r.load = ProbeResult::Load::Loaded;
  r.version = static_cast<long>(get_version());
  if (auto cudart = symbol<GetVersionFn>(lib, "cudnnGetCudartVersion")) r.cudart_version = static_cast<long>(cudart());
  if (auto err = symbol<ErrorStringFn>(lib, "cudnnGetErrorString")) r.status_text = err(0);
  probe_gpu(lib, r);
  return r;
}

}  // namespace cudnn_install
