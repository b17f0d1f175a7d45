// The backend (graph) API pieces of the graph tier: descriptors, engine configs and their knobs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench_api.hpp"

namespace cudnn_install::gpu {

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
  int set(int attr, int type, int64_t count, const void* value) const {
    return dnn_.BackendSetAttribute(desc_, attr, type, count, value);
  }
  int finalize() const { return dnn_.BackendFinalize(desc_); }

 private:
  const Cudnn& dnn_;
  Desc desc_ = nullptr;
};

using Backends = std::vector<std::unique_ptr<Backend>>;

// An engine config with the descriptors it was made from, which live as long as it does.
struct OwnedConfig {
  std::unique_ptr<Backend> config;
  std::shared_ptr<Backend> engine;  // shared by the knob neighbours of one engine
  Backends choices;
};
using Configs = std::vector<OwnedConfig>;

struct KnobChoice {
  int64_t type = 0;
  int64_t value = 0;
};

// What an engine config is: its engine, the engine's numerical notes, its knob choices.
struct ConfigInfo {
  int64_t engine = -1;
  std::vector<int> notes;
  std::vector<KnobChoice> knobs;
};

ConfigInfo describe_config(const Cudnn& dnn, Desc config);
// "engine 62 tile_size=3 stages=4": also the key that tells two candidates apart.
std::string config_label(const ConfigInfo& info);
// The rules of PyTorch's own filter: no engine that converts its inputs to a narrower type, and
// for FP32 without TF32 no tensor-core engine.
bool allowed_for(DataType dtype, const ConfigInfo& info);

// Every engine config that heuristics `mode` proposes for the operation graph, in its order.
Configs heuristic_configs(const Cudnn& dnn, Desc graph, int mode);
// Configs of base's engine that differ from `base` in one knob: the values of each knob nearest
// to base's choice, at most `limit` configs (bench_knobs.cpp).
Configs knob_neighbours(const Cudnn& dnn, Desc graph, const ConfigInfo& base, size_t limit);

}  // namespace cudnn_install::gpu
