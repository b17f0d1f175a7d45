// The runtime probe: dlopen the installed library by absolute path in a child process (this
// program re-run as "__probe LIB"), ask its version, and use the GPU when a driver is there.
// Signatures are declared here so that no CUDA or cuDNN header is needed to build or run.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "cudnn_install/verify.hpp"

extern char** environ;

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
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

// The driver API only: cuInit, a device, its name. No CUDA runtime is linked.
void probe_gpu(void* cudnn, ProbeResult& r) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cuda) {
    r.gpu = ProbeResult::Gpu::NoDriver;
    r.gpu_detail = "no NVIDIA driver: libcuda.so.1 not found";
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

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

}  // namespace

ProbeResult probe_library(const fs::path& library) {
  ProbeResult r;
  void* lib = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    r.load = ProbeResult::Load::Failed;
    r.detail = dlerror();
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

fs::path current_executable() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

ProbeResult probe_in_child(const fs::path& self_exe, const fs::path& library) {
  ProbeResult r;
  int out[2], err[2];
  if (pipe(out) != 0 || pipe(err) != 0) {
    r.detail = std::string("cannot start the probe: ") + std::strerror(errno);
    return r;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addclose(&actions, err[0]);
  std::string exe = self_exe.string(), lib = library.string();
  const char* argv[] = {exe.c_str(), "__probe", lib.c_str(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  std::string answer = rc == 0 ? read_all(out[0]) : std::string();
  std::string errors = rc == 0 ? read_all(err[0]) : std::string();
  close(out[0]);
  close(err[0]);
  int status = 0;
  if (rc != 0 || waitpid(pid, &status, 0) < 0) {
    r.detail = "cannot start the probe " + exe + ": " + std::strerror(rc ? rc : errno);
    return r;
  }
  if (WIFSIGNALED(status)) {
    r.load = ProbeResult::Load::Crashed;
    r.detail = std::string("the library crashed the probe process (") + strsignal(WTERMSIG(status)) + ")" +
               (errors.empty() ? "" : ": " + errors.substr(0, 400));
    return r;
  }
  auto json = nlohmann::json::parse(answer, nullptr, false);
  if (json.is_discarded()) {
    r.detail = "the probe answered nothing readable" + (errors.empty() ? std::string() : ": " + errors.substr(0, 400));
    return r;
  }
  return probe_from_json(json);
}

}  // namespace cudnn_install
