// `cudnn-install bench`: the GPU convolution benchmark of the installed cuDNN.
#include <fmt/format.h>

#include <iostream>
#include <sstream>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/bench.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/verify.hpp"

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

Result<BenchOptions> options_from(const BenchFlags& f) {
  BenchOptions o;
  o.batch = f.batch;
  o.repeats = f.repeats;
  o.shapes = f.quick ? ShapeSet::Quick : ShapeSet::ResNet50;
  auto dtypes = parse_list(f.dtypes, {DataType::Fp32, DataType::Tf32, DataType::Fp16, DataType::Bf16}, "data type");
  auto layouts = parse_list(f.layouts, {Layout::Nhwc, Layout::Nchw}, "layout");
  auto tiers = parse_list(f.tiers, {Tier::Legacy, Tier::Graph}, "tier");
  if (!dtypes) return std::unexpected(dtypes.error());
  if (!layouts) return std::unexpected(layouts.error());
  if (!tiers) return std::unexpected(tiers.error());
  if (f.batch < 1 || f.repeats < 1) return fail(ErrorCode::Usage, "--batch and --repeats must be at least 1");
  o.dtypes = *dtypes;
  o.layouts = *layouts;
  o.tiers = *tiers;
  return o;
}

// The installed main library: lib/libcudnn.so.<major of the installed header>.
Result<std::filesystem::path> installed_library(const Toolkit& tk) {
  auto v = installed_cudnn_version(tk);
  if (!v) return fail(ErrorCode::VerifyFailed, "no cuDNN is installed in " + tk.root.string());
  return tk.os == TargetOs::Windows ? tk.root / tk.bin_dir / fmt::format("cudnn64_{}.dll", v->major)
                                    : tk.root / tk.lib_dir / fmt::format("libcudnn.so.{}", v->major);
}

int run(const std::filesystem::path& library, const BenchOptions& options, const Options& o) {
  BenchOptions live = options;
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    live.on_result = [](const BenchResult& r) {
      std::cerr << fmt::format("  {} {} {} {}: {}\n", r.config.shape.name, to_string(r.config.dtype),
                               to_string(r.config.layout), to_string(r.config.tier),
                               r.error.empty() ? fmt::format("{:.1f} TFLOP/s", r.tflops) : r.error);
    };
  auto report = run_benchmark(library, live);
  if (!report) return report_error(report.error(), o);
  if (o.format == Format::Json)
    std::cout << bench_to_json(*report).dump(2) << "\n";
  else
    std::cout << render_bench_text(*report);
  return report->all_correct() ? 0 : static_cast<int>(ExitCode::VerifyFailed);
}

}  // namespace

void add_bench_options(CLI::App& bench, BenchFlags& f) {
  bench.add_option("--batch", f.batch, "batch size N of the ResNet-50 layers (default 128)");
  bench.add_option("--dtypes", f.dtypes, "comma list of fp32, tf32, fp16, bf16 (default fp16,bf16)");
  bench.add_option("--layouts", f.layouts, "comma list of nhwc, nchw (default nhwc)");
  bench.add_option("--tiers", f.tiers, "comma list of legacy, graph (default both)");
  bench.add_option("--repeats", f.repeats, "timed runs per configuration; the median is reported (default 20)");
  bench.add_flag("--quick", f.quick, "three layers only (the short run after an install)");
  bench.add_flag("--list-shapes", f.list_shapes, "print the layer shapes as JSON and exit");
  bench.add_option("--library", f.library, "benchmark this libcudnn instead of the toolkit's");
}

int cmd_bench(const Options& o) {
  auto options = options_from(o.bench);
  if (!options) return report_error(options.error(), o);
  if (o.bench.list_shapes) {
    std::cout << shapes_to_json(bench_shapes(options->shapes, options->batch)).dump(2) << "\n";
    return 0;
  }
  std::filesystem::path library;
  if (o.bench.library) {
    library = *o.bench.library;
  } else {
    auto toolkit = choose_toolkit(system_toolkit_search(o.cuda_root, process_runner()), std::nullopt);
    if (!toolkit) return report_error(toolkit.error(), o);
    auto found = installed_library(*toolkit);
    if (!found) return report_error(found.error(), o);
    library = *found;
  }
  return run(library, *options, o);
}

int run_post_install_bench(const Toolkit& toolkit, const Options& o) {
  auto library = installed_library(toolkit);
  if (!library) return report_error(library.error(), o);
  BenchOptions quick;
  quick.shapes = ShapeSet::Quick;
  quick.batch = 16;
  quick.repeats = 5;
  quick.graph_candidates = 3;
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "\nshort GPU benchmark (cudnn-install bench for the full one):\n";
  return run(*library, quick, o);
}

}  // namespace cudnn_install::cli
