// The benchmark report as JSON, as a table, and one progress line per result.
#include <fmt/format.h>

#include "cudnn_install/bench.hpp"
#include "cudnn_install/report.hpp"

namespace cudnn_install {
namespace {

nlohmann::json counts_json(const TimingCounts& c) {
  return {
      {"warmup", c.warmup}, {"warmup_ms", c.warmup_ms}, {"executions_per_batch", c.per_batch}, {"batches", c.batches}};
}

nlohmann::json timing_json(const Timing& t) {
  nlohmann::json j = counts_json(t.counts);
  j["method"] = to_string(t.method);
  j["measured"] = t.measured;
  if (t.measured)
    j["ms_per_execution"] = {{"min", t.ms.min}, {"median", t.ms.median}, {"max", t.ms.max}};
  else
    j["note"] = t.note;
  return j;
}

nlohmann::json finalist_json(const Finalist& f) {
  const Timing& kernel = f.kernel();
  nlohmann::json j{{"algorithm", f.algorithm},
                   {"source", f.source},
                   {"search_ms", f.search_ms},
                   {"picked", f.picked},
                   {"timings", {{"cuda_graph", timing_json(f.graph)}, {"back_to_back", timing_json(f.back_to_back)}}}};
  if (kernel.measured) {
    j["kernel_method"] = to_string(kernel.method);
    j["median_ms"] = kernel.ms.median;
    j["min_ms"] = kernel.ms.min;
    j["max_ms"] = kernel.ms.max;
  }
  return j;
}

nlohmann::json search_json(const SearchStats& s) {
  nlohmann::json sources = nlohmann::json::object();
  for (const auto& [name, count] : s.sources) sources[name] = count;
  nlohmann::json finalists = nlohmann::json::array();
  for (const Finalist& f : s.finalists) finalists.push_back(finalist_json(f));
  return {{"proposed", s.proposed},           {"failed", s.failed},     {"timed", s.timed},
          {"abandoned", s.abandoned},         {"rejected", s.rejected}, {"seconds", s.seconds},
          {"final_seconds", s.final_seconds}, {"finalists", finalists}, {"sources", sources}};
}

nlohmann::json result_json(const BenchResult& r) {
  nlohmann::json j{{"shape", r.config.shape.name},
                   {"dtype", to_string(r.config.dtype)},
                   {"layout", to_string(r.config.layout)},
                   {"tier", to_string(r.config.tier)},
                   {"search", search_json(r.search)}};
  if (!r.error.empty()) {
    j["error"] = r.error;
    return j;
  }
  const Timing& kernel = r.kernel();
  double flops = r.config.shape.flops();
  j.update({{"algorithm", r.algorithm},
            {"kernel_method", to_string(kernel.method)},
            {"median_ms", kernel.ms.median},
            {"min_ms", kernel.ms.min},
            {"max_ms", kernel.ms.max},
            {"tflops", r.tflops},
            {"tflops_min", flops / (kernel.ms.max * 1e-3) / 1e12},
            {"tflops_max", flops / (kernel.ms.min * 1e-3) / 1e12},
            {"peak_percent", r.peak_percent},
            {"timings",
             {{"cuda_graph", timing_json(r.kernel_graph)},
              {"back_to_back", timing_json(r.kernel_back_to_back)},
              {"single_call", timing_json(r.single_call)}}},
            {"checked_points", r.checked_points},
            {"max_error", r.max_error},
            {"tolerance", r.tolerance},
            {"correct", r.correct}});
  return j;
}

nlohmann::json method_json(const BenchOptions& o) {
  return {{"kernel_time",
           "per execution: the faster median of cuda_graph (executions captured in one CUDA graph, replayed "
           "between two events) and back_to_back (executions issued between two events); single_call is one "
           "execution between two events"},
          {"timing", counts_json(o.timing)},
          {"search_timing", counts_json(o.search_timing)},
          {"finalists", o.finalists},
          {"finalist_margin", o.finalist_margin},
          {"settle_ms", o.settle_ms},
          {"cool_ms", o.cool_ms},
          {"finalist_timing",
           "the candidates within finalist_margin of the best search median (at most `finalists`, then the "
           "fastest of each source not yet among them) that pass the check are, after settle_ms of untimed "
           "back-to-back executions of the first of them, timed with `timing`'s counts by both "
           "kernel methods, in two rounds of half the batches (every finalist in turn, forward then backward), "
           "each finalist and method after its own untimed batches for half of warmup_ms; the best kernel median "
           "is the pick, then timed alone by every method (when cool_ms > 0: after the GPU idled for cool_ms and then "
           "ran settle_ms of untimed executions of the pick)"},
          {"search", to_string(o.search)},
          {"timing_data", to_string(o.timing_data)},
          {"workspace_limit_bytes", o.workspace_limit}};
}

std::string ms_spread(const Timing& t) {
  if (!t.measured) return "-";
  return fmt::format("{:.4f} [{:.4f}-{:.4f}]", t.ms.median, t.ms.min, t.ms.max);
}

}  // namespace

const char* to_string(DataType t) {
  switch (t) {
    case DataType::Fp32:
      return "fp32";
    case DataType::Tf32:
      return "tf32";
    case DataType::Fp16:
      return "fp16";
    case DataType::Bf16:
      return "bf16";
  }
  return "?";
}

const char* to_string(Layout l) { return l == Layout::Nhwc ? "nhwc" : "nchw"; }
const char* to_string(Tier t) { return t == Tier::Graph ? "graph" : "legacy"; }
const char* to_string(TimingData d) { return d == TimingData::Normal ? "normal" : "exact"; }
const char* to_string(SearchDepth d) { return d == SearchDepth::Knobs ? "knobs" : "heuristics"; }

const char* to_string(TimingMethod m) {
  switch (m) {
    case TimingMethod::SingleCall:
      return "single_call";
    case TimingMethod::BackToBack:
      return "back_to_back";
    case TimingMethod::CudaGraph:
      return "cuda_graph";
  }
  return "?";
}

nlohmann::json shapes_to_json(const std::vector<ConvShape>& shapes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : shapes)
    out.push_back({{"name", s.name},
                   {"n", s.n},
                   {"c", s.c},
                   {"h", s.h},
                   {"w", s.w},
                   {"k", s.k},
                   {"r", s.r},
                   {"s", s.s},
                   {"stride", s.stride},
                   {"pad", s.pad},
                   {"flops", s.flops()}});
  return out;
}

nlohmann::json bench_to_json(const BenchReport& report) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& r : report.results) results.push_back(result_json(r));
  const DeviceInfo& d = report.device;
  return {{"schema", kJsonSchema},
          {"kind", "bench"},
          {"cudnn_version", report.cudnn_version},
          {"library", report.library},
          {"method", method_json(report.options)},
          {"device",
           {{"name", d.name},
            {"sm_count", d.sm_count},
            {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
            {"clock_mhz", d.clock_mhz},
            {"memory_gib", d.total_gib},
            {"peak_source", d.peak_source},
            {"peak_tflops",
             {{"fp32", d.peak_tflops[0]},
              {"tf32", d.peak_tflops[1]},
              {"fp16", d.peak_tflops[2]},
              {"bf16", d.peak_tflops[3]}}}}},
          {"all_correct", report.all_correct()},
          {"results", results}};
}

std::string render_bench_progress(const BenchResult& r) {
  const BenchConfig& c = r.config;
  std::string head =
      fmt::format("  {} {} {} {}: ", c.shape.name, to_string(c.dtype), to_string(c.layout), to_string(c.tier));
  if (!r.error.empty()) return head + r.error + "\n";
  return head + fmt::format("{:.1f} TFLOP/s ({} {:.4f} ms, single call {}), {}, {} candidates timed in {:.1f} s\n",
                            r.tflops, to_string(r.kernel().method), r.kernel().ms.median, ms_spread(r.single_call),
                            r.algorithm, r.search.timed, r.search.seconds);
}

std::string render_bench_text(const BenchReport& report) {
  const DeviceInfo& d = report.device;
  const BenchOptions& o = report.options;
  std::string out = fmt::format(
      "bench    cuDNN {} on {} ({} SMs, cc {}.{}, {:.0f} GiB)\n         peak: {}\n"
      "         kernel time: median [min-max] ms per execution over {} batches of {} executions, the faster of\n"
      "         a CUDA graph replay and back-to-back calls; single call: one execution per event pair\n\n",
      report.cudnn_version, d.name, d.sm_count, d.cc_major, d.cc_minor, d.total_gib, d.peak_source, o.timing.batches,
      o.timing.per_batch);
  out += fmt::format("{:<30} {:<5} {:<5} {:<7} {:>27} {:>8} {:>6} {:>27}  {}\n", "layer", "type", "lay", "tier",
                     "kernel ms", "TFLOP/s", "%peak", "single call ms", "algorithm, search, check");
  for (const auto& r : report.results) {
    const BenchConfig& c = r.config;
    out += fmt::format("{:<30} {:<5} {:<5} {:<7} ", c.shape.name, to_string(c.dtype), to_string(c.layout),
                       to_string(c.tier));
    if (!r.error.empty()) {
      out += "not run: " + r.error + "\n";
      continue;
    }
    out += fmt::format("{:>27} {:>8.1f} {:>5.1f}% {:>27}  {}; {} timed in {:.1f} s; {} (max err {:.1e}, tol {:.0e})\n",
                       ms_spread(r.kernel()) + " " + (r.kernel().method == TimingMethod::CudaGraph ? "G" : "B"),
                       r.tflops, r.peak_percent, ms_spread(r.single_call), r.algorithm, r.search.timed,
                       r.search.seconds, r.correct ? "ok" : "WRONG", r.max_error, r.tolerance);
  }
  out += "\nG: CUDA graph, B: back to back.\n";
  out += report.all_correct() ? "every timed configuration passed the numerical check.\n"
                              : "WRONG RESULTS: some configurations failed the numerical check.\n";
  return out;
}

}  // namespace cudnn_install
