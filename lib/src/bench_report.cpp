#include <fmt/format.h>

#include "cudnn_install/bench.hpp"
#include "cudnn_install/report.hpp"

namespace cudnn_install {

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
  for (const auto& r : report.results) {
    nlohmann::json j{{"shape", r.config.shape.name},
                     {"dtype", to_string(r.config.dtype)},
                     {"layout", to_string(r.config.layout)},
                     {"tier", to_string(r.config.tier)}};
    if (!r.error.empty()) {
      j["error"] = r.error;
    } else {
      j.update({{"median_ms", r.median_ms},
                {"tflops", r.tflops},
                {"peak_percent", r.peak_percent},
                {"algorithm", r.algorithm},
                {"checked_points", r.checked_points},
                {"max_error", r.max_error},
                {"tolerance", r.tolerance},
                {"correct", r.correct}});
    }
    results.push_back(std::move(j));
  }
  const DeviceInfo& d = report.device;
  return {{"schema", kJsonSchema},
          {"kind", "bench"},
          {"cudnn_version", report.cudnn_version},
          {"library", report.library},
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

std::string render_bench_text(const BenchReport& report) {
  const DeviceInfo& d = report.device;
  std::string out =
      fmt::format("bench    cuDNN {} on {} ({} SMs, cc {}.{}, {:.0f} GiB)\n         peak: {}\n\n", report.cudnn_version,
                  d.name, d.sm_count, d.cc_major, d.cc_minor, d.total_gib, d.peak_source);
  out += fmt::format("{:<30} {:<5} {:<5} {:<7} {:>9} {:>8} {:>6}  {:<22} {}\n", "layer", "type", "lay", "tier", "ms",
                     "TFLOP/s", "%peak", "algorithm", "check");
  for (const auto& r : report.results) {
    const BenchConfig& c = r.config;
    out += fmt::format("{:<30} {:<5} {:<5} {:<7} ", c.shape.name, to_string(c.dtype), to_string(c.layout),
                       to_string(c.tier));
    if (!r.error.empty())
      out += "not run: " + r.error + "\n";
    else
      out += fmt::format("{:>9.3f} {:>8.1f} {:>5.1f}%  {:<22} {} (max err {:.1e}, tol {:.0e}, {} points)\n",
                         r.median_ms, r.tflops, r.peak_percent, r.algorithm, r.correct ? "ok" : "WRONG", r.max_error,
                         r.tolerance, r.checked_points);
  }
  out += report.all_correct() ? "\nevery timed configuration passed the numerical check.\n"
                              : "\nWRONG RESULTS: some configurations failed the numerical check.\n";
  return out;
}

}  // namespace cudnn_install
