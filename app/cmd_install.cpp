// `cudnn-install ARCHIVE`: inspect -> choose toolkit -> scan -> plan -> (dry run: print).
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/report.hpp"
#include "cudnn_install/toolkit.hpp"

namespace cudnn_install::cli {

int cmd_install(const Options& options) {
  spdlog::debug("inspecting {}", options.archive.string());
  auto archive = inspect_archive(options.archive, options.force_name ? NameCheck::Skip : NameCheck::Enforce);
  if (!archive) return report_error(archive.error(), options);
  std::optional<int> cuda_major;
  if (archive->name) cuda_major = archive->name->cuda.major;
  auto toolkit = choose_toolkit(system_toolkit_search(options.cuda_root), cuda_major);
  if (!toolkit) return report_error(toolkit.error(), options);
  auto tree = scan_tree(*archive, *toolkit);
  if (!tree) return report_error(tree.error(), options);
  auto plan = make_plan(*archive, *toolkit, *tree, PlanOptions{});
  if (!plan) return report_error(plan.error(), options);
  if (options.format == Format::Json) std::cout << plan_to_json(*plan, *archive, *toolkit).dump(2) << "\n";
  else std::cout << render_plan_text(*plan, *archive, *toolkit);
  if (options.mode == Mode::DryRun) {
    if (options.format == Format::Text) std::cout << "dry run: nothing was written.\n";
    return 0;
  }
  return report_error(Error{ErrorCode::Usage,
                            "installing is not available in this build yet; use --dry-run to preview the plan", {}},
                      options);
}

}  // namespace cudnn_install::cli
