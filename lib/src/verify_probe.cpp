// The runtime probe. In the child (probe_library): load the installed library by absolute path,
// ask its version, and use the GPU when a driver is there; the signatures are declared here, so
// no CUDA or cuDNN header is needed. In the parent (probe_in_child): run the child through the
// process runner and read its answer; a library that crashes kills only the child.
#include "base/dynlib.hpp"
#include "base/util.hpp"
#include "cudnn_install/utf8.hpp"
#include "cudnn_install/verify.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// What the probe calls; the optional ones may be missing from older or partial libraries.
struct CudnnFunctions {
  size_t (*GetVersion)() = nullptr;
  size_t (*GetCudartVersion)() = nullptr;
  const char* (*GetErrorString)(int) = nullptr;
  int (*Create)(void**) = nullptr;
  int (*Destroy)(void*) = nullptr;
};

struct DriverFunctions {
  int (*Init)(unsigned) = nullptr;
  int (*DeviceGetCount)(int*) = nullptr;
  int (*DriverGetVersion)(int*) = nullptr;
  int (*DeviceGetName)(char*, int, int) = nullptr;
};

CudnnFunctions bind_cudnn(void* lib, std::string& missing) {
  CudnnFunctions f;
  dynlib::bind(lib, f.GetVersion, "cudnnGetVersion", missing);
  std::string optional;  // reported through what they leave unanswered
  dynlib::bind(lib, f.GetCudartVersion, "cudnnGetCudartVersion", optional);
  dynlib::bind(lib, f.GetErrorString, "cudnnGetErrorString", optional);
  dynlib::bind(lib, f.Create, "cudnnCreate", optional);
  dynlib::bind(lib, f.Destroy, "cudnnDestroy", optional);
  return f;
}

DriverFunctions bind_driver(void* lib, std::string& missing) {
  DriverFunctions f;
  dynlib::bind(lib, f.Init, "cuInit", missing);
  dynlib::bind(lib, f.DeviceGetCount, "cuDeviceGetCount", missing);
  std::string optional;
  dynlib::bind(lib, f.DriverGetVersion, "cuDriverGetVersion", optional);
  dynlib::bind(lib, f.DeviceGetName, "cuDeviceGetName", optional);
  return f;
}

// cudnnCreate and cudnnDestroy on the first device: cuDNN really runs on this GPU.
void use_gpu(const CudnnFunctions& cudnn, const std::string& device, ProbeResult& r) {
  void* handle = nullptr;
  int status = cudnn.Create && cudnn.Destroy ? cudnn.Create(&handle) : -1;
  if (status != 0) {
    r.gpu = ProbeResult::Gpu::Failed;
    r.gpu_detail = "cudnnCreate failed on " + device + ": " +
                   (cudnn.GetErrorString && status >= 0 ? cudnn.GetErrorString(status) : "unknown status");
    return;
  }
  cudnn.Destroy(handle);
  r.gpu = ProbeResult::Gpu::Used;
  r.gpu_detail = device;
}

// The driver API only: cuInit, a device, its name. No CUDA runtime is linked.
void probe_gpu(const CudnnFunctions& cudnn, ProbeResult& r) {
  void* lib = dynlib::open_driver();
  if (!lib) {
    r.gpu = ProbeResult::Gpu::NoDriver;
    r.gpu_detail = std::string("no NVIDIA driver: ") + dynlib::driver_name() + " not found";
    return;
  }
  std::string missing;
  DriverFunctions driver = bind_driver(lib, missing);
  if (driver.DriverGetVersion) driver.DriverGetVersion(&r.driver_version);
  int count = 0;
  if (!missing.empty() || driver.Init(0) != 0 || driver.DeviceGetCount(&count) != 0 || count == 0) {
    r.gpu = ProbeResult::Gpu::NoDevice;
    r.gpu_detail = "the NVIDIA driver is present but no GPU is usable (cuInit failed or no device)";
    return;
  }
  char name[256] = {};
  if (driver.DeviceGetName) driver.DeviceGetName(name, sizeof name, 0);
  use_gpu(cudnn, name, r);
}

std::string excerpt(const std::string& errors) { return errors.empty() ? "" : ": " + errors.substr(0, 400); }

}  // namespace

ProbeResult probe_library(const fs::path& library) {
  ProbeResult r;
  void* lib = dynlib::open(library);
  if (!lib) {
    r.load = ProbeResult::Load::Failed;
    r.detail = dynlib::last_error();
    return r;
  }
  std::string missing;
  CudnnFunctions cudnn = bind_cudnn(lib, missing);
  if (!missing.empty()) {
    r.load = ProbeResult::Load::Failed;
    r.detail = "cudnnGetVersion is not exported: this is not a cuDNN library";
    return r;
  }
  r.load = ProbeResult::Load::Loaded;
  r.version = static_cast<long>(cudnn.GetVersion());
  if (cudnn.GetCudartVersion) r.cudart_version = static_cast<long>(cudnn.GetCudartVersion());
  if (cudnn.GetErrorString) r.status_text = cudnn.GetErrorString(0);
  probe_gpu(cudnn, r);
  return r;
}

ProbeResult probe_in_child(ProcessRunner& runner, const std::vector<std::string>& probe_command,
                           const fs::path& library) {
  ProbeResult r;
  std::vector<std::string> argv = probe_command;
  argv.push_back(utf8_text(library));
  RunOptions options;
  options.max_output_bytes = 1 << 20;
  auto child = runner.run(argv, options);
  if (!child) {
    r.detail = "cannot start the probe: " + child.error().message;
    return r;
  }
  if (child->end != ProcessOutput::End::Exited) {
    r.load = child->end == ProcessOutput::End::Crashed ? ProbeResult::Load::Crashed : ProbeResult::Load::Failed;
    r.detail = (child->end == ProcessOutput::End::Crashed ? "the library crashed the probe process ("
                                                          : "the probe process hung (") +
               child->describe() + ")" + excerpt(child->err);
    return r;
  }
  auto json = nlohmann::json::parse(child->out, nullptr, false);
  if (json.is_discarded()) {
    r.detail = "the probe answered nothing readable (" + child->describe() + ")" + excerpt(child->err);
    return r;
  }
  return probe_from_json(json);
}

}  // namespace cudnn_install
