// The fake cuDNN of bench_fake_gpu.hpp: the backend API (heuristics, engine configs and knobs,
// plans, execution) and the legacy convolution API (Find, ConvolutionForward).
#include <algorithm>
#include <map>

#include "bench_fake_gpu.hpp"

namespace cudnn_install::test::fake {
namespace {

using namespace gpu;

constexpr int kNotSupported = 3000;  // CUDNN_STATUS_NOT_SUPPORTED

struct FakeDesc {
  int type = 0;
  std::map<int, std::vector<int64_t>> ints;
  std::map<int, std::vector<void*>> ptrs;
  // What an engine, engine config or plan stands for, once known.
  int64_t engine = -1;
  Knobs knobs;
  FakeDesc* graph = nullptr;
};

FakeDesc* as(Desc d) { return static_cast<FakeDesc*>(d); }
int64_t int_of(Desc d, int attr) { return as(d)->ints[attr].at(0); }
FakeDesc* ptr_of(Desc d, int attr) { return as(d)->ptrs[attr].empty() ? nullptr : as(as(d)->ptrs[attr][0]); }

int create(int type, Desc* d) {
  *d = new FakeDesc{type, {}, {}, -1, {}, nullptr};
  return 0;
}

int destroy(Desc d) {
  delete as(d);
  return 0;
}

int set_attribute(Desc d, int attr, int type, int64_t count, const void* value) {
  FakeDesc* f = as(d);
  switch (type) {
    case T_INT64:
      f->ints[attr].assign(static_cast<const int64_t*>(value), static_cast<const int64_t*>(value) + count);
      break;
    case T_DATA_TYPE:
    case T_CONV_MODE:
    case T_HEUR_MODE:
    case T_KNOB_TYPE:
      f->ints[attr].assign(static_cast<const int*>(value), static_cast<const int*>(value) + count);
      break;
    case T_HANDLE:
    case T_VOID_PTR:
    case T_BACKEND_DESCRIPTOR:
      f->ptrs[attr].assign(static_cast<void* const*>(value), static_cast<void* const*>(value) + count);
      break;
    default:
      break;  // alpha and beta
  }
  return 0;
}

bool knob_in_range(const FakeEngine& e, int64_t type, int64_t value) {
  for (const FakeKnob& k : e.knobs)
    if (k.type == type) return value >= k.min && value <= k.max;
  return false;
}

int finalize(Desc d) {
  FakeDesc* f = as(d);
  if (f->type == BK_ENGINE) {
    f->engine = int_of(d, A_ENGINE_INDEX);
    f->graph = ptr_of(d, A_ENGINE_GRAPH);
    return engine_spec(f->engine) ? 0 : kNotSupported;
  }
  if (f->type == BK_ENGINECFG) {
    FakeDesc* e = ptr_of(d, A_CFG_ENGINE);
    f->engine = e->engine;
    f->graph = e->graph;
    for (void* c : f->ptrs[A_CFG_KNOB_CHOICES]) {
      int64_t type = int_of(c, A_KNOB_CHOICE_TYPE), value = int_of(c, A_KNOB_CHOICE_VALUE);
      if (!knob_in_range(*engine_spec(f->engine), type, value)) return kNotSupported;
      f->knobs.emplace_back(type, value);
    }
    return 0;
  }
  if (f->type == BK_EXECUTION_PLAN) {
    FakeDesc* cfg = ptr_of(d, A_PLAN_CONFIG);
    const FakeEngine* spec = engine_spec(cfg->engine);
    if (!spec || !spec->plans) return kNotSupported;
    f->engine = cfg->engine;
    f->knobs = cfg->knobs;
    f->graph = cfg->graph;
  }
  return 0;
}

const std::vector<int64_t>& heuristics(int mode) {
  switch (mode) {
    case HEUR_MODE_A:
      return setup().mode_a;
    case HEUR_MODE_INSTANT:
      return setup().mode_instant;
    case HEUR_MODE_B:
      return setup().mode_b;
    default:
      return setup().fallback;
  }
}

int heuristic_results(FakeDesc* heur, int64_t requested, int64_t* returned, Desc* out) {
  const auto& engines = heuristics(static_cast<int>(heur->ints[A_HEUR_MODE].at(0)));
  *returned = requested == 0 ? static_cast<int64_t>(engines.size()) : std::min<int64_t>(requested, engines.size());
  for (int64_t i = 0; requested > 0 && i < *returned; ++i) {
    FakeDesc* cfg = as(out[i]);
    cfg->engine = engines[static_cast<size_t>(i)];
    cfg->graph = ptr_of(heur, A_HEUR_GRAPH);
    cfg->knobs.clear();
    for (const FakeKnob& k : engine_spec(cfg->engine)->knobs) cfg->knobs.emplace_back(k.type, k.heuristic);
  }
  return 0;
}

int knob_infos(const FakeEngine& spec, int64_t requested, int64_t* returned, Desc* out) {
  *returned = std::min<int64_t>(requested, spec.knobs.size());
  for (int64_t i = 0; i < *returned; ++i) {
    const FakeKnob& k = spec.knobs[static_cast<size_t>(i)];
    as(out[i])->ints = {{A_KNOB_INFO_TYPE, {k.type}},
                        {A_KNOB_INFO_MIN, {k.min}},
                        {A_KNOB_INFO_MAX, {k.max}},
                        {A_KNOB_INFO_STRIDE, {k.stride}}};
  }
  return 0;
}

int get_attribute(Desc d, int attr, int, int64_t requested, int64_t* returned, void* out) {
  FakeDesc* f = as(d);
  *returned = 1;
  switch (attr) {
    case A_HEUR_RESULTS:
      return heuristic_results(f, requested, returned, static_cast<Desc*>(out));
    case A_CFG_ENGINE:
      as(*static_cast<Desc*>(out))->engine = f->engine;
      as(*static_cast<Desc*>(out))->graph = f->graph;
      return 0;
    case A_ENGINE_INDEX:
      *static_cast<int64_t*>(out) = f->engine;
      return 0;
    case A_ENGINE_NOTE: {
      const auto& notes = engine_spec(f->engine)->notes;
      *returned = std::min<int64_t>(requested, notes.size());
      std::copy_n(notes.begin(), *returned, static_cast<int*>(out));
      return 0;
    }
    case A_CFG_KNOB_CHOICES:
      *returned = std::min<int64_t>(requested, f->knobs.size());
      for (int64_t i = 0; i < *returned; ++i)
        as(static_cast<Desc*>(out)[i])->ints = {{A_KNOB_CHOICE_TYPE, {f->knobs[size_t(i)].first}},
                                                {A_KNOB_CHOICE_VALUE, {f->knobs[size_t(i)].second}}};
      return 0;
    case A_ENGINE_KNOB_INFO:
      return knob_infos(*engine_spec(f->engine), requested, returned, static_cast<Desc*>(out));
    case A_KNOB_CHOICE_TYPE:
    case A_KNOB_INFO_TYPE:
      *static_cast<int*>(out) = static_cast<int>(int_of(d, attr));
      return 0;
    case A_KNOB_CHOICE_VALUE:
    case A_KNOB_INFO_MIN:
    case A_KNOB_INFO_MAX:
    case A_KNOB_INFO_STRIDE:
      *static_cast<int64_t*>(out) = int_of(d, attr);
      return 0;
    case A_PLAN_WORKSPACE:
      *static_cast<int64_t*>(out) = 1024;
      return 0;
    default:
      return kNotSupported;
  }
}

Tensor tensor_of(Desc d) {
  return {as(d)->ints[A_TENSOR_DIMS], as(d)->ints[A_TENSOR_STRIDES], static_cast<int>(int_of(d, A_TENSOR_DTYPE))};
}

int backend_execute(Handle, Desc plan, Desc pack) {
  FakeDesc* op = ptr_of(as(plan)->graph, A_GRAPH_OPS);
  FakeDesc* conv_desc = ptr_of(op, A_OP_CONV);
  Conv conv{tensor_of(ptr_of(op, A_OP_X)), tensor_of(ptr_of(op, A_OP_W)), tensor_of(ptr_of(op, A_OP_Y)),
            int_of(conv_desc, A_CONV_PRE_PAD), int_of(conv_desc, A_CONV_STRIDES)};
  std::map<int64_t, void*> by_uid;
  for (size_t i = 0; i < as(pack)->ints[A_VP_UIDS].size(); ++i)
    by_uid[as(pack)->ints[A_VP_UIDS][i]] = as(pack)->ptrs[A_VP_POINTERS][i];
  const FakeEngine& spec = *engine_spec(as(plan)->engine);
  return run_conv(conv, by_uid['x'], by_uid['w'], by_uid['y'], engine_ms(spec, as(plan)->knobs), spec.capturable,
                  spec.output, spec.index);
}

// --- the legacy API: tensor and filter descriptors are fake::Tensor, the convolution a LegacyConv ---
struct LegacyConv {
  int64_t pad = 0, stride = 1;
};

std::vector<int64_t> strides_of(int format, int64_t c, int64_t h, int64_t w) {
  if (format == TENSOR_NHWC) return {h * w * c, 1, w * c, c};
  return {c * h * w, h * w, w, 1};
}

int create_tensor(Desc* d) {
  *d = new Tensor;
  return 0;
}
int destroy_tensor(Desc d) {
  delete static_cast<Tensor*>(d);
  return 0;
}
int set_tensor(Desc d, int format, int dtype, int n, int c, int h, int w) {
  *static_cast<Tensor*>(d) = {{n, c, h, w}, strides_of(format, c, h, w), dtype};
  return 0;
}
int set_filter(Desc d, int dtype, int format, int k, int c, int h, int w) {
  return set_tensor(d, format, dtype, k, c, h, w);
}
int create_conv(Desc* d) {
  *d = new LegacyConv;
  return 0;
}
int destroy_conv(Desc d) {
  delete static_cast<LegacyConv*>(d);
  return 0;
}
int set_conv(Desc d, int pad, int, int stride, int, int, int, int, int) {
  *static_cast<LegacyConv*>(d) = {pad, stride};
  return 0;
}
int set_math(Desc, int) { return 0; }

int find(Handle, Desc, const void*, Desc, const void*, Desc, Desc, void*, int requested, int* found, PerfResult* perf,
         void*, size_t) {
  auto algos = setup().legacy;
  std::sort(algos.begin(), algos.end(), [](const FakeAlgo& a, const FakeAlgo& b) { return a.ms < b.ms; });
  *found = std::min<int>(requested, static_cast<int>(algos.size()));
  for (int i = 0; i < *found; ++i) {
    const FakeAlgo& a = algos[static_cast<size_t>(i)];
    perf[i] = {a.algo, 0, static_cast<float>(a.ms), 0, 0, a.math_type, {}};
  }
  return 0;
}

int forward(Handle, const void*, Desc xd, const void* x, Desc wd, const void* w, Desc cd, int algo, void*, size_t,
            const void*, Desc yd, void* y) {
  for (const FakeAlgo& a : setup().legacy)
    if (a.algo == algo) {
      const auto* conv = static_cast<LegacyConv*>(cd);
      Conv cv{*static_cast<Tensor*>(xd), *static_cast<Tensor*>(wd), *static_cast<Tensor*>(yd), conv->pad, conv->stride};
      return run_conv(cv, x, w, y, a.ms, true, FakeOutput::Right);
    }
  return kNotSupported;
}

size_t version() { return 91900; }
const char* error_string(int) { return "CUDNN_STATUS_FAKE"; }
int handle_create(Handle* h) {
  static int handle;
  *h = &handle;
  return 0;
}
int handle_op(Handle) { return 0; }
int set_stream(Handle, void*) { return 0; }

}  // namespace

Cudnn cudnn() {
  Cudnn c;
  c.GetVersion = version;
  c.GetErrorString = error_string;
  c.Create = handle_create;
  c.Destroy = handle_op;
  c.SetStream = set_stream;
  c.CreateTensorDescriptor = create_tensor;
  c.SetTensor4dDescriptor = set_tensor;
  c.DestroyTensorDescriptor = destroy_tensor;
  c.CreateFilterDescriptor = create_tensor;
  c.SetFilter4dDescriptor = set_filter;
  c.DestroyFilterDescriptor = destroy_tensor;
  c.CreateConvolutionDescriptor = create_conv;
  c.SetConvolution2dDescriptor = set_conv;
  c.SetConvolutionMathType = set_math;
  c.DestroyConvolutionDescriptor = destroy_conv;
  c.FindConvolutionForwardAlgorithmEx = find;
  c.ConvolutionForward = forward;
  c.BackendCreateDescriptor = create;
  c.BackendDestroyDescriptor = destroy;
  c.BackendFinalize = finalize;
  c.BackendSetAttribute = set_attribute;
  c.BackendGetAttribute = get_attribute;
  c.BackendExecute = backend_execute;
  return c;
}

}  // namespace cudnn_install::test::fake
