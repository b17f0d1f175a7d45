// Tier 2: the graph (backend) API. One convolution node; every engine config that heuristics
// modes A, INSTANT and B and the fallback list propose is a candidate (those PyTorch's filter would also
// drop excepted), then the knob neighbours of the fastest engines' configs.
#include <map>
#include <set>

#include "bench_backend.hpp"

namespace cudnn_install::gpu {
namespace {

std::vector<int64_t> strides_of(Layout layout, int64_t c, int64_t h, int64_t w) {
  if (layout == Layout::Nhwc) return {h * w * c, 1, w * c, c};
  return {c * h * w, h * w, w, 1};
}

int make_tensor(Backend& t, int64_t uid, int dtype, std::vector<int64_t> dims, Layout layout) {
  auto strides = strides_of(layout, dims[1], dims[2], dims[3]);
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

// An execution plan and its variant pack: one candidate's run.
struct Plan {
  Backend plan, pack;
  explicit Plan(const Cudnn& dnn) : plan(dnn, BK_EXECUTION_PLAN), pack(dnn, BK_VARIANT_PACK) {}
};

// Everything the candidates point to, alive until the search has finished.
struct GraphState {
  Backend x, w, y, conv, op, graph;
  std::vector<OwnedConfig> configs;
  std::vector<std::unique_ptr<Plan>> plans;
  std::set<std::string> seen;               // labels already proposed
  std::map<std::string, ConfigInfo> infos;  // of the candidates that ran, by label
  explicit GraphState(const Cudnn& dnn)
      : x(dnn, BK_TENSOR),
        w(dnn, BK_TENSOR),
        y(dnn, BK_TENSOR),
        conv(dnn, BK_CONVOLUTION),
        op(dnn, BK_OP_CONV_FWD),
        graph(dnn, BK_OPERATIONGRAPH) {}
};

int build_graph(GraphState& g, Handle h, const BenchConfig& cfg) {
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

// The plan of `config` with its variant pack, or nullptr when it cannot be made or needs more
// workspace than the shared buffer has.
std::unique_ptr<Plan> make_plan(const Gpu& gpu, Desc config, const Operands& io) {
  const Cudnn& dnn = gpu.libs.dnn;
  auto p = std::make_unique<Plan>(dnn);
  Handle h = gpu.handle;
  if (p->plan.set(A_PLAN_HANDLE, T_HANDLE, 1, &h) != 0 ||
      p->plan.set(A_PLAN_CONFIG, T_BACKEND_DESCRIPTOR, 1, &config) != 0 || p->plan.finalize() != 0)
    return nullptr;
  int64_t ws_size = -1, n = 0;
  dnn.BackendGetAttribute(p->plan.get(), A_PLAN_WORKSPACE, T_INT64, 1, &n, &ws_size);
  if (ws_size < 0 || static_cast<uint64_t>(ws_size) > gpu.workspace.size()) return nullptr;
  int64_t uids[3] = {'x', 'w', 'y'};
  void* ptrs[3] = {io.x, io.w, io.y};
  void* ws = gpu.workspace.get();
  if (p->pack.set(A_VP_UIDS, T_INT64, 3, uids) != 0 || p->pack.set(A_VP_POINTERS, T_VOID_PTR, 3, ptrs) != 0 ||
      p->pack.set(A_VP_WORKSPACE, T_VOID_PTR, 1, &ws) != 0 || p->pack.finalize() != 0)
    return nullptr;
  return p;
}

// Proposes one config to the search, unless an identical one was, or the data type rules it out.
void propose(const Gpu& gpu, const BenchConfig& cfg, const Operands& io, GraphState& g, OwnedConfig config,
             const std::string& source, Search& search) {
  ConfigInfo info = describe_config(gpu.libs.dnn, config.config->get());
  std::string label = config_label(info);
  if (!allowed_for(cfg.dtype, info) || !g.seen.insert(label).second) return;
  auto plan = make_plan(gpu, config.config->get(), io);
  if (!plan) {
    search.count_failed(source);
    return;
  }
  const Cudnn& dnn = gpu.libs.dnn;
  Handle h = gpu.handle;
  Desc p = plan->plan.get(), pack = plan->pack.get();
  g.infos[label] = info;
  g.plans.push_back(std::move(plan));
  g.configs.push_back(std::move(config));
  search.add({label, source, [&dnn, h, p, pack] { return dnn.BackendExecute(h, p, pack); }});
}

}  // namespace

TierState search_graph(const Gpu& gpu, const BenchConfig& cfg, const BenchOptions& options, const Operands& io,
                       Search& search, std::string& error) {
  const Cudnn& dnn = gpu.libs.dnn;
  auto g = std::make_shared<GraphState>(dnn);
  if (int rc = build_graph(*g, gpu.handle, cfg); rc != 0) {
    error = std::string("operation graph: ") + dnn.GetErrorString(rc);
    return g;
  }
  Desc graph = g->graph.get();
  // INSTANT is the mode PyTorch's cudnn.benchmark asks: its list, whatever it holds, is ours too.
  for (auto [mode, source] :
       {std::pair{HEUR_MODE_A, "heuristics mode A"}, std::pair{HEUR_MODE_INSTANT, "heuristics mode INSTANT"},
        std::pair{HEUR_MODE_B, "heuristics mode B"}, std::pair{HEUR_MODE_FALLBACK, "fallback list"}})
    for (OwnedConfig& c : heuristic_configs(dnn, graph, mode)) propose(gpu, cfg, io, *g, std::move(c), source, search);
  if (options.search != SearchDepth::Knobs) return g;
  // The knob neighbours of the four fastest engines' best configs.
  constexpr size_t kEngines = 4, kNeighboursPerEngine = 64;
  std::set<int64_t> engines;
  std::vector<ConfigInfo> bases;
  for (const Candidate* c : search.fastest(16)) {
    auto info = g->infos.find(c->label);
    if (info != g->infos.end() && bases.size() < kEngines && engines.insert(info->second.engine).second)
      bases.push_back(info->second);
  }
  for (const ConfigInfo& base : bases)
    for (OwnedConfig& c : knob_neighbours(dnn, graph, base, kNeighboursPerEngine))
      propose(gpu, cfg, io, *g, std::move(c), "knob sweep", search);
  return g;
}

}  // namespace cudnn_install::gpu
