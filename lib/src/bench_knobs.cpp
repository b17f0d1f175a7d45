// Engine configs of the graph tier: those the heuristics propose, what each one is (engine,
// numerical notes, knob choices), and the knob neighbours of a config.
#include <algorithm>
#include <array>
#include <utility>

#include "bench_backend.hpp"

namespace cudnn_install::gpu {
namespace {

// cudnnBackendKnobType_t names of cuDNN 9, lower case; the deprecated ones are "knob<N>".
const char* knob_name(int64_t type) {
  static constexpr std::pair<int64_t, const char*> names[] = {
      {1, "swizzle"},     {2, "tile_size"},   {4, "edge"},        {11, "multiply"},    {12, "split_k_buf"},
      {13, "tilek"},      {14, "stages"},     {15, "reduction"},  {17, "split_k_slc"}, {18, "idx_mode"},
      {23, "specfilt"},   {24, "kernel_cfg"}, {25, "workspace"},  {27, "tile_cga_m"},  {28, "tile_cga_n"},
      {29, "block_size"}, {30, "occupancy"},  {31, "array_size"}, {33, "split_cols"},  {34, "tile_rows"},
      {35, "tile_cols"},  {36, "load_size"},  {37, "cta_count"},  {38, "stream_k"},    {39, "split_p_slc"},
      {40, "tile_m"},     {41, "tile_n"},     {42, "warp_spec"},  {43, "swap_ab"}};
  for (const auto& [number, name] : names)
    if (number == type) return name;
  return "";
}

std::vector<KnobChoice> knob_choices(const Cudnn& dnn, Desc config) {
  Backends holders;
  std::vector<Desc> raw;
  for (int i = 0; i < KNOB_SLOTS; ++i) {
    holders.push_back(std::make_unique<Backend>(dnn, BK_KNOB_CHOICE));
    raw.push_back(holders.back()->get());
  }
  int64_t got = 0;
  std::vector<KnobChoice> knobs;
  if (dnn.BackendGetAttribute(config, A_CFG_KNOB_CHOICES, T_BACKEND_DESCRIPTOR, static_cast<int64_t>(raw.size()), &got,
                              raw.data()) != 0)
    return knobs;
  for (int64_t i = 0; i < std::min<int64_t>(got, static_cast<int64_t>(raw.size())); ++i) {
    int type = 0;  // an enum: int-sized
    int64_t value = 0, n = 0;
    if (dnn.BackendGetAttribute(raw[i], A_KNOB_CHOICE_TYPE, T_KNOB_TYPE, 1, &n, &type) == 0 &&
        dnn.BackendGetAttribute(raw[i], A_KNOB_CHOICE_VALUE, T_INT64, 1, &n, &value) == 0)
      knobs.push_back({type, value});
  }
  std::sort(knobs.begin(), knobs.end(), [](const KnobChoice& a, const KnobChoice& b) { return a.type < b.type; });
  return knobs;
}

struct KnobRange {
  int64_t type = 0, min = 0, max = 0, stride = 1;
};

std::vector<KnobRange> knob_ranges(const Cudnn& dnn, Desc engine) {
  Backends holders;
  std::vector<Desc> raw;
  for (int i = 0; i < KNOB_SLOTS; ++i) {
    holders.push_back(std::make_unique<Backend>(dnn, BK_KNOB_INFO));
    raw.push_back(holders.back()->get());
  }
  int64_t got = 0;
  std::vector<KnobRange> ranges;
  if (dnn.BackendGetAttribute(engine, A_ENGINE_KNOB_INFO, T_BACKEND_DESCRIPTOR, static_cast<int64_t>(raw.size()), &got,
                              raw.data()) != 0)
    return ranges;
  for (int64_t i = 0; i < std::min<int64_t>(got, static_cast<int64_t>(raw.size())); ++i) {
    int type = 0;
    KnobRange r;
    int64_t n = 0;
    if (dnn.BackendGetAttribute(raw[i], A_KNOB_INFO_TYPE, T_KNOB_TYPE, 1, &n, &type) == 0 &&
        dnn.BackendGetAttribute(raw[i], A_KNOB_INFO_MIN, T_INT64, 1, &n, &r.min) == 0 &&
        dnn.BackendGetAttribute(raw[i], A_KNOB_INFO_MAX, T_INT64, 1, &n, &r.max) == 0 &&
        dnn.BackendGetAttribute(raw[i], A_KNOB_INFO_STRIDE, T_INT64, 1, &n, &r.stride) == 0) {
      r.type = type;
      r.stride = std::max<int64_t>(1, r.stride);
      ranges.push_back(r);
    }
  }
  return ranges;
}

// The values of `range` nearest to `current` (or its lowest values when base has no choice for
// it), at most `per_knob`, without `current` itself.
std::vector<int64_t> values_near(const KnobRange& range, const KnobChoice* current, size_t per_knob) {
  std::vector<int64_t> values;
  if (!current) {
    for (int64_t v = range.min; v <= range.max && values.size() < per_knob; v += range.stride) values.push_back(v);
    return values;
  }
  for (int64_t step = 1; values.size() < per_knob && step <= static_cast<int64_t>(per_knob); ++step) {
    int64_t below = current->value - step * range.stride, above = current->value + step * range.stride;
    if (above <= range.max) values.push_back(above);
    if (below >= range.min && values.size() < per_knob) values.push_back(below);
  }
  return values;
}

OwnedConfig make_config(const Cudnn& dnn, const std::shared_ptr<Backend>& engine,
                        const std::vector<KnobChoice>& knobs) {
  OwnedConfig owned;
  owned.engine = engine;
  std::vector<Desc> raw;
  for (const KnobChoice& k : knobs) {
    auto choice = std::make_unique<Backend>(dnn, BK_KNOB_CHOICE);
    int type = static_cast<int>(k.type);
    if (choice->set(A_KNOB_CHOICE_TYPE, T_KNOB_TYPE, 1, &type) != 0 ||
        choice->set(A_KNOB_CHOICE_VALUE, T_INT64, 1, &k.value) != 0 || choice->finalize() != 0)
      return {};
    raw.push_back(choice->get());
    owned.choices.push_back(std::move(choice));
  }
  owned.config = std::make_unique<Backend>(dnn, BK_ENGINECFG);
  Desc e = engine->get();
  if (owned.config->set(A_CFG_ENGINE, T_BACKEND_DESCRIPTOR, 1, &e) != 0 ||
      (!raw.empty() && owned.config->set(A_CFG_KNOB_CHOICES, T_BACKEND_DESCRIPTOR, static_cast<int64_t>(raw.size()),
                                         raw.data()) != 0) ||
      owned.config->finalize() != 0)
    return {};
  return owned;
}

}  // namespace

ConfigInfo describe_config(const Cudnn& dnn, Desc config) {
  ConfigInfo info;
  Backend engine(dnn, BK_ENGINE);
  Desc e = engine.get();
  int64_t n = 0;
  if (!e || dnn.BackendGetAttribute(config, A_CFG_ENGINE, T_BACKEND_DESCRIPTOR, 1, &n, &e) != 0) return info;
  dnn.BackendGetAttribute(e, A_ENGINE_INDEX, T_INT64, 1, &n, &info.engine);
  std::array<int, 16> notes{};
  int64_t count = 0;
  if (dnn.BackendGetAttribute(e, A_ENGINE_NOTE, T_NUMERICAL_NOTE, notes.size(), &count, notes.data()) == 0)
    info.notes.assign(notes.begin(), notes.begin() + std::clamp<int64_t>(count, 0, notes.size()));
  info.knobs = knob_choices(dnn, config);
  return info;
}

std::string config_label(const ConfigInfo& info) {
  std::string label = "engine " + std::to_string(info.engine);
  for (const KnobChoice& k : info.knobs) {
    std::string name = knob_name(k.type);
    label += " " + (name.empty() ? "knob" + std::to_string(k.type) : name) + "=" + std::to_string(k.value);
  }
  return label;
}

bool allowed_for(DataType dtype, const ConfigInfo& info) {
  for (int note : info.notes) {
    if (note == NOTE_DOWN_CONVERT_INPUTS) return false;
    if (note == NOTE_TENSOR_CORE && dtype == DataType::Fp32) return false;
  }
  return info.engine >= 0;
}

Configs heuristic_configs(const Cudnn& dnn, Desc graph, int mode) {
  Configs configs;
  Backend heur(dnn, BK_ENGINEHEUR);
  if (heur.set(A_HEUR_GRAPH, T_BACKEND_DESCRIPTOR, 1, &graph) != 0 ||
      heur.set(A_HEUR_MODE, T_HEUR_MODE, 1, &mode) != 0 || heur.finalize() != 0)
    return configs;
  int64_t count = 0;
  if (dnn.BackendGetAttribute(heur.get(), A_HEUR_RESULTS, T_BACKEND_DESCRIPTOR, 0, &count, nullptr) != 0 || count <= 0)
    return configs;
  std::vector<Desc> raw;
  for (int64_t i = 0; i < count; ++i) {
    configs.push_back({std::make_unique<Backend>(dnn, BK_ENGINECFG), nullptr, {}});
    raw.push_back(configs.back().config->get());
  }
  int64_t got = 0;
  if (dnn.BackendGetAttribute(heur.get(), A_HEUR_RESULTS, T_BACKEND_DESCRIPTOR, count, &got, raw.data()) != 0)
    return {};
  configs.resize(static_cast<size_t>(std::clamp<int64_t>(got, 0, count)));
  return configs;
}

Configs knob_neighbours(const Cudnn& dnn, Desc graph, const ConfigInfo& base, size_t limit) {
  constexpr size_t kValuesPerKnob = 8;
  Configs out;
  auto engine = std::make_shared<Backend>(dnn, BK_ENGINE);
  if (engine->set(A_ENGINE_GRAPH, T_BACKEND_DESCRIPTOR, 1, &graph) != 0 ||
      engine->set(A_ENGINE_INDEX, T_INT64, 1, &base.engine) != 0 || engine->finalize() != 0)
    return out;
  for (const KnobRange& range : knob_ranges(dnn, engine->get())) {
    auto it =
        std::find_if(base.knobs.begin(), base.knobs.end(), [&](const KnobChoice& k) { return k.type == range.type; });
    const KnobChoice* current = it == base.knobs.end() ? nullptr : &*it;
    for (int64_t value : values_near(range, current, kValuesPerKnob)) {
      std::vector<KnobChoice> knobs = base.knobs;
      if (current)
        knobs[static_cast<size_t>(it - base.knobs.begin())].value = value;
      else
        knobs.push_back({range.type, value});
      if (OwnedConfig c = make_config(dnn, engine, knobs); c.config) out.push_back(std::move(c));
      if (out.size() >= limit) return out;
    }
  }
  return out;
}

}  // namespace cudnn_install::gpu
