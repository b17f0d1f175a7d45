// What the benchmark runs: the layers, the short run after an install, where the library is,
// and what the result means for the exit code.
#include <fmt/format.h>

#include "cudnn_install/bench.hpp"
#include "cudnn_install/verify.hpp"

namespace cudnn_install {

double tolerance_of(DataType t) {
  switch (t) {
    case DataType::Fp32:
      return 1e-5;
    case DataType::Tf32:
      return 2e-3;
    case DataType::Fp16:
      return 2e-3;
    case DataType::Bf16:
      return 1e-2;
  }
  return 0;
}

std::vector<ConvShape> bench_shapes(ShapeSet set, int n) {
  auto conv = [&](std::string name, int batch, int c, int hw, int k, int rs, int stride) {
    return ConvShape{std::move(name), batch, c, hw, hw, k, rs, rs, stride, rs / 2};
  };
  if (set == ShapeSet::Quick)
    return {conv("res2 1x1 256->64 @56", n, 256, 56, 64, 1, 1), conv("res3 3x3 128->128 @28", n, 128, 28, 128, 3, 1),
            conv("large 3x3 256->256 @64", n, 256, 64, 256, 3, 1)};
  return {conv("conv1 7x7/2 3->64 @224", n, 3, 224, 64, 7, 2),
          conv("res2 1x1 64->64 @56", n, 64, 56, 64, 1, 1),
          conv("res2 3x3 64->64 @56", n, 64, 56, 64, 3, 1),
          conv("res2 1x1 64->256 @56", n, 64, 56, 256, 1, 1),
          conv("res2 1x1 256->64 @56", n, 256, 56, 64, 1, 1),
          conv("res3 3x3 128->128 @28", n, 128, 28, 128, 3, 1),
          conv("res3 1x1 128->512 @28", n, 128, 28, 512, 1, 1),
          conv("res3 1x1 512->128 @28", n, 512, 28, 128, 1, 1),
          conv("res4 3x3 256->256 @14", n, 256, 14, 256, 3, 1),
          conv("res4 1x1 256->1024 @14", n, 256, 14, 1024, 1, 1),
          conv("res4 1x1 1024->256 @14", n, 1024, 14, 256, 1, 1),
          conv("res5 3x3 512->512 @7", n, 512, 7, 512, 3, 1),
          conv("res5 1x1 512->2048 @7", n, 512, 7, 2048, 1, 1),
          conv("res5 1x1 2048->512 @7", n, 2048, 7, 512, 1, 1),
          conv("large 3x3 256->256 @64 (N64)", 64, 256, 64, 256, 3, 1)};
}

BenchOptions quick_bench_options() {
  BenchOptions o;
  o.shapes = bench_shapes(ShapeSet::Quick, 16);
  o.timing = {2, 10, 5, 50};
  o.search_timing = {1, 3, 2};
  o.finalists = 2;
  o.settle_ms = 200;
  o.search = SearchDepth::Heuristics;
  o.workspace_limit = std::uint64_t(256) << 20;
  return o;
}

Result<std::filesystem::path> installed_cudnn_library(const Toolkit& tk) {
  auto v = installed_cudnn_version(tk);
  if (!v) return fail(ErrorCode::VerifyFailed, "no cuDNN is installed in " + tk.root.string());
  return tk.os == TargetOs::Windows ? tk.root / tk.bin_dir / fmt::format("cudnn64_{}.dll", v->major)
                                    : tk.root / tk.lib_dir / fmt::format("libcudnn.so.{}", v->major);
}

ExitCode bench_exit_code(const BenchReport& report) {
  return report.all_correct() ? ExitCode::Ok : ExitCode::VerifyFailed;
}

}  // namespace cudnn_install
