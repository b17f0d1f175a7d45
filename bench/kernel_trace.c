/* Which GPU kernels a process ran last: a CUPTI injection library for bench/run-on-device.sh's
 * `kernels` mode, which runs `cudnn-install bench` and bench/pytorch_conv.py on one configuration
 * each with it, to tell whether both sides' picks run the same kernels.
 *
 * CUDA loads it into any process started with CUDA_INJECTION64_PATH=.../libkernel_trace.so and calls
 * InitializeInjection() at its first CUDA call. It records every kernel (CUPTI's concurrent-kernel
 * activity: start, end, graph, launch shape, name) and, at exit, writes the last KEPT of them to the
 * file named by KERNEL_TRACE_OUT (default: standard error), oldest first:
 *
 *   # kernel_trace: 41234 kernels traced (0 records dropped), the last 512 follow (start_ns end_ns graph_id launch
 * name) 1733591234000000000<TAB>1733591234000081000<TAB>0<TAB>grid=132,1,1 block=384,1,1
 * cluster=1,2,1<TAB>sm90_xmma_fprop_..._kernel
 *
 * The launch shape tells apart two configs of one kernel: cuDNN's tile_cga_m/tile_cga_n knobs change
 * the thread-block cluster a kernel is launched with, not its name.
 *
 * Each side times its pick last (single calls after the batches), so the tail of the trace is the
 * pick's kernels. A failure of CUPTI is written as "# kernel_trace: error: ..." and leaves the
 * process to run on untraced.
 *
 * Build: bench/build-kernel-trace.sh (needs the CUDA toolkit's CUPTI headers and libcupti). */
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { KEPT = 512, NAME_MAX_CHARS = 480, LAUNCH_MAX_CHARS = 128, BUFFER_BYTES = 4 << 20, RECORD_ALIGN = 8 };

/* LAUNCH_MAX_CHARS holds the longest launch text (nine 32-bit numbers, 123 characters): a cut one
 * could make two launch shapes look alike. */
struct kernel {
  uint64_t start, end;
  uint32_t graph;
  char launch[LAUNCH_MAX_CHARS];
  char name[NAME_MAX_CHARS];
};

static struct kernel ring[KEPT];
static uint64_t traced;  /* kernels seen; the newest is ring[(traced - 1) % KEPT] */
static uint64_t dropped; /* records CUPTI could not store */
static char error[256];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void keep(const CUpti_ActivityKernel10* k) {
  struct kernel* slot = &ring[traced % KEPT];
  slot->start = k->start;
  slot->end = k->end;
  slot->graph = k->graphId;
  snprintf(slot->launch, sizeof slot->launch, "grid=%d,%d,%d block=%d,%d,%d cluster=%u,%u,%u", k->gridX, k->gridY,
           k->gridZ, k->blockX, k->blockY, k->blockZ, k->clusterX, k->clusterY, k->clusterZ);
  snprintf(slot->name, sizeof slot->name, "%s", k->name ? k->name : "?");
  traced++;
}

static void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = aligned_alloc(RECORD_ALIGN, BUFFER_BYTES);
  *size = *buffer ? BUFFER_BYTES : 0;
  *max_records = 0; /* as many as fit */
}

static void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t* buffer, size_t size, size_t valid) {
  (void)size;
  CUpti_Activity* record = NULL;
  size_t lost = 0;
  pthread_mutex_lock(&lock);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) keep((const CUpti_ActivityKernel10*)record);
  if (cuptiActivityGetNumDroppedRecords(context, stream, &lost) == CUPTI_SUCCESS) dropped += lost;
  pthread_mutex_unlock(&lock);
  free(buffer);
}

static void write_trace(void) {
  if (!error[0]) cuptiActivityFlushAll(1);
  const char* path = getenv("KERNEL_TRACE_OUT");
  FILE* out = path && *path ? fopen(path, "w") : stderr;
  if (!out) {
    fprintf(stderr, "kernel_trace: cannot write %s\n", path);
    return;
  }
  pthread_mutex_lock(&lock);
  if (error[0]) fprintf(out, "# kernel_trace: error: %s\n", error);
  uint64_t first = traced > KEPT ? traced - KEPT : 0;
  fprintf(out,
          "# kernel_trace: %llu kernels traced (%llu records dropped), the last %llu follow "
          "(start_ns end_ns graph_id launch name)\n",
          (unsigned long long)traced, (unsigned long long)dropped, (unsigned long long)(traced - first));
  for (uint64_t i = first; i < traced; i++) {
    const struct kernel* k = &ring[i % KEPT];
    fprintf(out, "%llu\t%llu\t%u\t%s\t%s\n", (unsigned long long)k->start, (unsigned long long)k->end, k->graph,
            k->launch, k->name);
  }
  pthread_mutex_unlock(&lock);
  if (out != stderr) fclose(out);
}

static int failed(const char* call, CUptiResult status) {
  const char* text = NULL;
  if (cuptiGetResultString(status, &text) != CUPTI_SUCCESS || !text) text = "unknown CUPTI error";
  snprintf(error, sizeof error, "%s: %s (%d)", call, text, (int)status);
  return 0;
}

/* Called by the CUDA driver; returning 0 leaves the process to run untraced. */
int InitializeInjection(void) {
  atexit(write_trace);
  CUptiResult status = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (status != CUPTI_SUCCESS) return failed("cuptiActivityRegisterCallbacks", status);
  status = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  if (status != CUPTI_SUCCESS) return failed("cuptiActivityEnable", status);
  return 1;
}
