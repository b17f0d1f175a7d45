// A loadable stand-in for libcudnn.so.9 where this machine has no real cuDNN (scripts/make-test-archive.sh
// packs it, with generated headers, under NVIDIA's archive name): the tests that install, verify and
// diagnose "the real archive" then run everywhere. It answers what verify's probe asks: the version
// (9.19.0, as its headers say), the CUDA it was built for, and no handle (there is no GPU to make one on).
extern "C" {
__attribute__((visibility("default"))) unsigned long cudnnGetVersion() { return 91900; }
__attribute__((visibility("default"))) unsigned long cudnnGetCudartVersion() { return 13000; }
__attribute__((visibility("default"))) const char* cudnnGetErrorString(int status) {
  return status == 0 ? "CUDNN_STATUS_SUCCESS" : "CUDNN_STATUS_NOT_INITIALIZED";
}
__attribute__((visibility("default"))) int cudnnCreate(void** handle) {
  if (handle) *handle = nullptr;
  return 1001;  // CUDNN_STATUS_NOT_INITIALIZED: as the real one answers without a usable GPU
}
__attribute__((visibility("default"))) int cudnnDestroy(void*) { return 0; }
}
