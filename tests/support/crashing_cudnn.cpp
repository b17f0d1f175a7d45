// A stand-in for a broken cuDNN: exports cudnnGetVersion, but aborts as soon as it is loaded, as
// the cuDNN 8 shim does when a sub-library is missing. The verify child must die, not the parent.
#include <cstdlib>

extern "C" {
__attribute__((constructor)) static void abort_on_load() { std::abort(); }
__attribute__((visibility("default"))) size_t cudnnGetVersion() { return 91900; }
}
