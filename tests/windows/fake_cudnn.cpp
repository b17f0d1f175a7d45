// A loadable stand-in for cudnn64_8.dll: exports cudnnGetVersion (8.9.5 -> 8905) and carries a
// version resource (fake_cudnn.rc) with FileVersion 8.9.5.30, as NVIDIA's DLLs do.
extern "C" __declspec(dllexport) unsigned long long cudnnGetVersion() { return 8905; }
extern "C" __declspec(dllexport) const char* cudnnGetErrorString(int) { return "CUDNN_STATUS_SUCCESS"; }
