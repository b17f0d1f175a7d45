// Tier 2: the graph (backend) API. One convolution node; heuristics mode A ranks engine configs;
// the top candidates are finalised into execution plans, timed, and the fastest is kept.
#include <memory>
#include <vector>

#include "bench_api.hpp"

namespace cudnn_install::gpu {
namespace {

// A backend descriptor destroyed on scope exit.
class Backend {
 public:
  Backend(const Cudnn& dnn, int type) : dnn_(dnn) {
    if (dnn_.BackendCreateDescriptor(type, &desc_) != 0) desc_ = nullptr;
  }
  ~Backend() {
    if (desc_) dnn_.BackendDestroyDescriptor(desc_);
  }
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  Desc get() const { return desc_; }
  Desc* address() { return &desc_; }
  int set(int attr, int type, int64_t count, const void* value) const {
    return dnn_.BackendSetAttribute(desc_, attr, type, count, value);
  }
  int finalize() const { return dnn_.BackendFinalize(desc_); }

 private:
  const Cudnn& dnn_;
  Desc desc_ = nullptr;
};

std::vector<int64_t> strides_of(Layout layout, int64_t n_unused, int64_t c, int64_t h, int64_t w) {
  (void)n_unused;
  if (layout == Layout::Nhwc) return {h * w * c, 1, w * c, c};
  return {c * h * w, h * w, w, 1};
}

int make_tensor(Backend& t, int64_t uid, int dtype, std::vector<int64_t> dims, Layout layout) {
  auto strides = strides_of(layout, dims[0], dims[1], dims[2], dims[3]);
  int64_t align = 16;
  int rc = t.set(A_TENSOR_DTYPE, T_DATA_TYPE, 1, &dtype);
  if (rc == 0) rc = t.set(A_TENSOR_DIMS, T_INT64, 4, dims.data());
  if (rc == 0) rc = t.set(A_TENSOR_STRIDES, T_INT64, 4, strides.data());
  if (rc == 0) rc = t.set(A_TENSOR_UID, T_INT64, 1, &uid);
  if (rc == 0) rc = t.set(A_TENSOR_ALIGN, T_INT64, 1, &align);
  return rc == 0 ? t.finalize() : rc;
}

int make_conv(Backend& c, const ConvShape& s) {
  int comp = DATA_FLOAT, mode = CROSS_CORRELATION;
  int64_t dims = 2, pad[2] = {s.pad, s.pad}, stride[2] = {s.stride, s.stride}, dil[2] = {1, 1};
  int rc = c.set(A_CONV_COMP_TYPE, T_DATA_TYPE, 1, &comp);
  if (rc == 0) rc = c.set(A_CONV_MODE, T_CONV_MODE, 1, &mode);
  if (rc == 0) rc = c.set(A_CONV_SPATIAL_DIMS, T_INT64, 1, &dims);
  if (rc == 0) rc = c.set(A_CONV_PRE_PAD, T_INT64, 2, pad);
  if (rc == 0) rc = c.set(A_CONV_POST_PAD, T_INT64, 2, pad);
  if (rc == 0) rc = c.set(A_CONV_STRIDES, T_INT64, 2, stride);
  if (rc == 0) rc = c.set(A_CONV_DILATIONS, T_INT64, 2, dil);
  return rc == 0 ? c.finalize() : rc;
}

// The operation graph of one forward convolution, with everything it points to.
struct ConvGraph {
  Backend x, w, y, conv, op, graph;
  explicit ConvGraph(const Cudnn& dnn)
      : x(dnn, BK_TENSOR),
        w(dnn, BK_TENSOR),
        y(dnn, BK_TENSOR),
        conv(dnn, BK_CONVOLUTION),
        op(dnn, BK_OP_CONV_FWD),
        graph(dnn, BK_OPERATIONGRAPH) {}
};

int build_graph(ConvGraph& g, Handle h, const BenchConfig& cfg) {
  const ConvShape& s = cfg.shape;
  int dt = cudnn_dtype(cfg.dtype);
  int rc = make_tensor(g.x, 'x', dt, {s.n, s.c, s.h, s.w}, cfg.layout);
  if (rc == 0) rc = make_tensor(g.w, 'w', dt, {s.k, s.c, s.r, s.s}, cfg.layout);
  if (rc == 0) rc = make_tensor(g.y, 'y', dt, {s.n, s.k, s.p(), s.q()}, cfg.layout);
  if (rc == 0) rc = make_conv(g.conv, s);
  float alpha = 1.0f, beta = 0.0f;
  Desc x = g.x.get(), w = g.w.get(), y = g.y.get(), conv = g.conv.get(), op = g.op.get();
  if (rc == 0) rc = g.op.set(A_OP_X, T_BACKEND_DESCRIPTOR, 1, &x);
  if (rc == 0) rc = g.op.set(A_OP_W, T_BACKEND_DESCRIPTOR, 1, &w);
  if (rc == 0) rc = g.op.set(A_OP_Y, T_BACKEND_DESCRIPTOR, 1, &y);
  if (rc == 0) rc = g.op.set(A_OP_CONV, T_BACKEND_DESCRIPTOR, 1, &conv);
  if (rc == 0) rc = g.op.set(A_OP_ALPHA, T_FLOAT, 1, &alpha);
  if (rc == 0) rc = g.op.set(A_OP_BETA, T_FLOAT, 1, &beta);
  if (rc == 0) rc = g.op.finalize();
  if (rc == 0) rc = g.graph.set(A_GRAPH_HANDLE, T_HANDLE, 1, &h);
  if (rc == 0) rc = g.graph.set(A_GRAPH_OPS, T_BACKEND_DESCRIPTOR, 1, &op);
  return rc == 0 ? g.graph.finalize() : rc;
}

// Engine configs ranked by heuristics mode A, the most promising first.
std::vector<std::unique_ptr<Backend>> ranked_configs(const Cudnn& dnn, Desc graph, int limit, int mode) {
  std::vector<std::unique_ptr<Backend>> configs;
  Backend heur(dnn, BK_ENGINEHEUR);
  if (heur.set(A_HEUR_GRAPH, T_BACKEND_DESCRIPTOR, 1, &graph) != 0 ||
      heur.set(A_HEUR_MODE, T_HEUR_MODE, 1, &mode) != 0 || heur.finalize() != 0)
    return configs;
  int64_t count = 0;
  dnn.BackendGetAttribute(heur.get(), A_HEUR_RESULTS, T_BACKEND_DESCRIPTOR, 0, &count, nullptr);
  count = std::min<int64_t>(count, limit);
  std::vector<Desc> raw;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back(std::make_unique<Backend>(dnn, BK_ENGINECFG));
    raw.push_back(configs.back()->get());
  }
  int64_t got = 0;
  if (count == 0 ||
      dnn.BackendGetAttribute(heur.get(), A_HEUR_RESULTS, T_BACKEND_DESCRIPTOR, count, &got, raw.data()) != 0)
    configs.clear();
  configs.resize(static_cast<size_t>(std::min<int64_t>(got, static_cast<int64_t>(configs.size()))));
  return configs;
}

// Index and tensor-core note of the engine behind a config.
std::pair<int64_t, bool> engine_of(const Cudnn& dnn, Desc config) {
  Backend engine(dnn, BK_ENGINE);
  Desc e = engine.get();
  int64_t n = 0, index = -1;
  if (dnn.BackendGetAttribute(config, A_CFG_ENGINE, T_BACKEND_DESCRIPTOR, 1, &n, &e) != 0) return {-1, false};
  dnn.BackendGetAttribute(e, A_ENGINE_INDEX, T_INT64, 1, &n, &index);
  int notes[16] = {};
  int64_t note_count = 0;
  dnn.BackendGetAttribute(e, A_ENGINE_NOTE, T_NUMERICAL_NOTE, 16, &note_count, notes);
  bool tensor_core = false;
  for (int64_t i = 0; i < note_count; ++i) tensor_core |= notes[i] == NOTE_TENSOR_CORE;
  return {index, tensor_core};
}

struct Candidate {
  double ms = -1;
  int64_t engine = -1;
};

Candidate time_plan(const Libraries& libs, Handle h, Desc config, void* x, void* w, void* y, size_t ws_limit,
                    int repeats) {
  const Cudnn& dnn = libs.dnn;
  Backend plan(dnn, BK_EXECUTION_PLAN);
  if (plan.set(A_PLAN_HANDLE, T_HANDLE, 1, &h) != 0 || plan.set(A_PLAN_CONFIG, T_BACKEND_DESCRIPTOR, 1, &config) != 0 ||
      plan.finalize() != 0)
    return {};
  int64_t ws_size = 0, n = 0;
  dnn.BackendGetAttribute(plan.get(), A_PLAN_WORKSPACE, T_INT64, 1, &n, &ws_size);
  if (ws_size < 0 || static_cast<size_t>(ws_size) > ws_limit) return {};
  DeviceBuffer ws(libs.cu, static_cast<size_t>(ws_size));
  if (ws_size > 0 && !ws.ok()) return {};
  Backend pack(dnn, BK_VARIANT_PACK);
  int64_t uids[3] = {'x', 'w', 'y'};
  void* ptrs[3] = {x, w, y};
  void* wsp = ws.get();
  if (pack.set(A_VP_UIDS, T_INT64, 3, uids) != 0 || pack.set(A_VP_POINTERS, T_VOID_PTR, 3, ptrs) != 0 ||
      pack.set(A_VP_WORKSPACE, T_VOID_PTR, 1, &wsp) != 0 || pack.finalize() != 0)
    return {};
  double ms = median_time_ms(libs.cu, repeats, [&] { return dnn.BackendExecute(h, plan.get(), pack.get()); });
  return {ms, engine_of(dnn, config).first};
}

}  // namespace

void run_graph(const Libraries& libs, Handle h, const BenchConfig& cfg, void* x, void* w, void* y, size_t ws_limit,
               int repeats, int candidates, BenchResult& out) {
  ConvGraph g(libs.dnn);
  if (int rc = build_graph(g, h, cfg); rc != 0) {
    out.error = std::string("operation graph: ") + libs.dnn.GetErrorString(rc);
    return;
  }
  // True FP32 excludes the TF32 tensor-core engines that mode A ranks first: look further, and
  // at the fallback list when none of those run.
  bool strict_fp32 = cfg.dtype == DataType::Fp32;
  std::vector<std::unique_ptr<Backend>> configs;
  Candidate best;
  Desc best_config = nullptr;
  for (int mode : {HEUR_MODE_A, HEUR_MODE_FALLBACK}) {
    auto ranked = ranked_configs(libs.dnn, g.graph.get(), strict_fp32 ? 64 : candidates * 2, mode);
    int tried = 0;
    for (const auto& c : ranked) {
      if (tried == candidates) break;
      if (strict_fp32 && engine_of(libs.dnn, c->get()).second) continue;
      ++tried;
      Candidate t = time_plan(libs, h, c->get(), x, w, y, ws_limit, 5);
      if (t.ms > 0 && (best.ms < 0 || t.ms < best.ms)) best = t, best_config = c->get();
    }
    for (auto& c : ranked) configs.push_back(std::move(c));  // keeps best_config alive
    if (best_config) break;
  }
  if (!best_config) {
    out.error = "no engine config could run (" + std::to_string(configs.size()) + " proposed)";
    return;
  }
  Candidate final_timing = time_plan(libs, h, best_config, x, w, y, ws_limit, repeats);  // re-timed alone
  out.median_ms = final_timing.ms;
  out.algorithm = "engine " + std::to_string(best.engine);
  if (out.median_ms < 0) out.error = "the chosen execution plan failed when re-timed";
}

}  // namespace cudnn_install::gpu
