// `cudnn-install bench`: parses the flags, runs the library's bench operation, prints its report.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "cudnn_install/bench.hpp"
#include "path_option.hpp"

namespace cudnn_install::cli {
namespace {

template <class E>
Result<std::vector<E>> parse_list(const std::string& text, std::initializer_list<E> all, const char* what) {
  std::vector<E> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    auto it = std::find_if(all.begin(), all.end(), [&](E e) { return item == to_string(e); });
    if (it == all.end()) {
      std::string names;
      for (E e : all) names += std::string(names.empty() ? "" : ", ") + to_string(e);
      return fail(ErrorCode::Usage, fmt::format("unknown {} '{}': use {}", what, item, names));
    }
    out.push_back(*it);
  }
  return out;
}

template <class E>
Result<E> parse_one(const std::string& text, std::initializer_list<E> all, const char* what) {
  auto list = parse_list(text, all, what);
  if (!list) return std::unexpected(list.error());
  if (list->size() != 1) return fail(ErrorCode::Usage, fmt::format("give one {}, not '{}'", what, text));
  return list->front();
}

// The layers whose name contains one of the comma-separated parts of `filter`.
Result<std::vector<ConvShape>> select_layers(std::vector<ConvShape> shapes, const std::string& filter) {
  if (filter.empty()) return shapes;
  std::vector<std::string> parts;
  std::stringstream ss(filter);
  for (std::string part; std::getline(ss, part, ',');) parts.push_back(part);
  std::erase_if(shapes, [&](const ConvShape& s) {
    return std::none_of(parts.begin(), parts.end(),
                        [&](const std::string& p) { return s.name.find(p) != std::string::npos; });
  });
  if (shapes.empty()) return fail(ErrorCode::Usage, "no layer matches --layers '" + filter + "' (see --list-shapes)");
  return shapes;
}

Result<BenchOptions> options_from(const BenchFlags& f) {
  if (f.batch < 1 || f.batches < 1 || f.per_batch < 1)
    return fail(ErrorCode::Usage, "--batch, --batches and --per-batch must be at least 1");
  // The inputs are made on the host first: N 4096 of the largest layer is already 13 GB of FP32.
  if (f.batch > 4096 || f.batches > 10000 || f.per_batch > 10000)
    return fail(ErrorCode::Usage, "--batch is at most 4096, --batches and --per-batch at most 10000");
  if (f.settle_ms < 0 || f.settle_ms > 60000)
    return fail(ErrorCode::Usage, "--settle-ms is 0 to 60000 (milliseconds of untimed load before each timing)");
  if (f.cool_ms < 0 || f.cool_ms > 60000)
    return fail(ErrorCode::Usage, "--cool-ms is 0 to 60000 (milliseconds the GPU idles before the pick is timed)");
  if (f.finalists < 1 || f.finalists > 16 || f.finalist_margin_percent < 0 || f.finalist_margin_percent > 100)
    return fail(ErrorCode::Usage, "--finalists is 1 to 16 and --finalist-margin 0 to 100 (percent)");
  BenchOptions o;
  auto shapes = select_layers(bench_shapes(f.quick ? ShapeSet::Quick : ShapeSet::ResNet50, f.batch), f.layers);
  if (!shapes) return std::unexpected(shapes.error());
  o.shapes = *shapes;
  o.timing.batches = f.batches;
  o.timing.per_batch = f.per_batch;
  o.settle_ms = f.settle_ms;
  o.cool_ms = f.cool_ms;
  o.finalists = f.finalists;
  o.finalist_margin = f.finalist_margin_percent / 100.0;
  auto dtypes = parse_list(f.dtypes, {DataType::Fp32, DataType::Tf32, DataType::Fp16, DataType::Bf16}, "data type");
  auto layouts = parse_list(f.layouts, {Layout::Nhwc, Layout::Nchw}, "layout");
  auto tiers = parse_list(f.tiers, {Tier::Legacy, Tier::Graph}, "tier");
  auto search = parse_one(f.search, {SearchDepth::Heuristics, SearchDepth::Knobs}, "search depth");
  auto data = parse_one(f.timing_data, {TimingData::Normal, TimingData::Exact}, "timing data");
  if (!dtypes) return std::unexpected(dtypes.error());
  if (!layouts) return std::unexpected(layouts.error());
  if (!tiers) return std::unexpected(tiers.error());
  if (!search) return std::unexpected(search.error());
  if (!data) return std::unexpected(data.error());
  o.dtypes = *dtypes;
  o.layouts = *layouts;
  o.tiers = *tiers;
  o.search = *search;
  o.timing_data = *data;
  return o;
}

int run(const BenchRequest& request, const Options& o) {
  BenchServices services = system_bench_services();
  if (o.verbosity != Verbosity::Quiet)  // stderr: JSON on stdout stays one object
    services.on_result = [](const BenchResult& r) { std::cerr << render_bench_progress(r); };
  auto report = bench(request, services);
  if (!report) return report_error(report.error(), o);
  if (o.format == Format::Json && answer().kind() == "bench")
    answer().merge(nested(bench_to_json(*report)));
  else if (o.format == Format::Json)  // after an install
    answer()["bench"] = nested(bench_to_json(*report));
  else
    std::cout << render_bench_text(*report);
  return static_cast<int>(bench_exit_code(*report));
}

}  // namespace

void add_bench_options(CLI::App& bench, BenchFlags& f) {
  bench.add_option("--batch", f.batch, "batch size N of the ResNet-50 layers (default 128)");
  bench.add_option("--dtypes", f.dtypes, "comma list of fp32, tf32, fp16, bf16 (default fp16,bf16)");
  bench.add_option("--layouts", f.layouts, "comma list of nhwc, nchw (default nhwc)");
  bench.add_option("--tiers", f.tiers, "comma list of legacy, graph (default both)");
  bench.add_option("--batches,--repeats", f.batches, "timed batches; min, median and max are over these (default 10)");
  bench.add_option("--per-batch", f.per_batch, "executions per batch, back to back or in one CUDA graph (default 20)");
  bench.add_option("--settle-ms", f.settle_ms,
                   "untimed load before each configuration's finalists are timed, so that the timing starts from "
                   "sustained load, not from a GPU left idle by the check (default 1000; 0: none)");
  bench.add_option("--cool-ms", f.cool_ms,
                   "idle time before the pick's reported timing, which then follows --settle-ms of load: a figure "
                   "from the same history as a peer's timed after the same idle (default 0: right after the "
                   "finalists)");
  bench.add_option("--finalists", f.finalists,
                   "at most this many of the search's fastest candidates are timed in full, by both methods under "
                   "sustained load (default 4)");
  bench.add_option("--finalist-margin", f.finalist_margin_percent,
                   "PCT: a candidate is a finalist when its short search timing is within PCT % of the best; the "
                   "search times at whatever clock the GPU is at, so its ranking is rough (default 5)");
  bench.add_option("--search", f.search, "heuristics, or knobs: also the knob neighbours of the fastest (default)");
  bench.add_option("--timing-data", f.timing_data, "normal (default) or exact: the values the timed runs read");
  bench.add_option("--layers", f.layers, "comma list of parts of layer names: only those layers");
  bench.add_flag("--quick", f.quick, "three layers only (the short run after an install)");
  bench.add_flag("--list-shapes", f.list_shapes, "print the layer shapes as JSON and exit");
  add_path_option(bench, "--library", f.library, "benchmark this libcudnn instead of the toolkit's");
}

int cmd_bench(const Options& o) {
  auto options = options_from(o.bench);
  if (!options) return report_error(options.error(), o);
  if (o.bench.list_shapes) {
    if (o.format == Format::Json) {
      answer().begin("shapes");
      answer()["shapes"] = shapes_to_json(options->shapes);
    } else {
      std::cout << shapes_to_json(options->shapes).dump(2) << "\n";  // the list alone, as it always was
    }
    return 0;
  }
  BenchRequest request;
  request.library = o.bench.library;
  request.cuda_root = o.cuda_root;
  request.options = *options;
  return run(request, o);
}

int run_post_install_bench(const Toolkit& toolkit, const Options& o) {
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "\nshort GPU benchmark (cudnn-install bench for the full one):\n";
  BenchRequest request;
  request.toolkit = toolkit;
  request.options = quick_bench_options();
  return run(request, o);
}

}  // namespace cudnn_install::cli
