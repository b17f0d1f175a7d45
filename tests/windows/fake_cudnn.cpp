// A loadable stand-in for cudnn64_N.dll: exports cudnnGetVersion (FAKE_CUDNN_NUMBER, e.g. 8.9.5 ->
// 8905) and carries a version resource (fake_cudnn.rc.in) with its FileVersion, as NVIDIA's DLLs do.
extern "C" __declspec(dllexport) unsigned long long cudnnGetVersion() { return FAKE_CUDNN_NUMBER; }
extern "C" __declspec(dllexport) const char* cudnnGetErrorString(int) { return "CUDNN_STATUS_SUCCESS"; }
