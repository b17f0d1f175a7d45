// install() and plan_install() (install.hpp): the stages in order, each one a library call.
#include "cudnn_install/install.hpp"

#include <spdlog/spdlog.h>

#include "base/try.hpp"
#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/state_dir.hpp"
#include "install_inspect.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

struct ScannedPlan {
  Plan plan;
  std::size_t files_read = 0;
};

Result<ScannedPlan> scan_and_plan(const ArchiveInfo& archive, const Toolkit& toolkit, const EnvStep& env,
                                  FileSystem& fs) {
  FileStamps stamps = read_file_stamps(fs, toolkit.root);
  TRY_ASSIGN(auto tree, scan_tree(fs, archive, toolkit, known_crc_from(fs, stamps)));
  spdlog::debug("{} existing files read to compare them, the others known from their stamps", tree.files_read);
  PlanOptions options;
  options.generated = env.files;
  options.env_edit = env.edit;
  options.env_entry = env.entry;
  TRY_ASSIGN(auto plan, make_plan(archive, toolkit, tree, options));
  return ScannedPlan{std::move(plan), tree.files_read};
}

// What the archive's cuDNN needs on Windows besides its own files (the rules doctor uses).
std::vector<RuntimeNeed> runtime_needs_of(const ArchiveInfo& archive, const Toolkit& toolkit,
                                          const InstallServices& services) {
  if (toolkit.os != TargetOs::Windows || !services.runtime_evidence) return {};
  const CudnnVersion& v = archive.header_version;
  return windows_runtime_needs(v.major, v.minor, toolkit.root / toolkit.bin_dir, services.runtime_evidence(toolkit));
}

// Stamps the files the plan put in place (or found identical), so that installing the same
// archive again compares them without reading them. A cache: failing costs only that.
void stamp_installed(FileSystem& fs, const Toolkit& toolkit, const Plan& plan,
                     const std::map<std::string, FileStamp>& written = {}) {
  std::vector<std::string> files;
  for (const auto& s : plan.steps)
    if (s.type == EntryType::File &&
        (s.action == Action::Create || s.action == Action::Overwrite || s.action == Action::SkipIdentical))
      files.push_back(s.target);
  auto stamped = stamp_files(fs, toolkit.root, files, written);
  if (!stamped)
    spdlog::warn("could not stamp the installed files ({}); nothing else is affected", stamped.error().message);
  else
    spdlog::debug("{} of {} installed files stamped", *stamped, files.size());
}

// Stopped while the archive was read into the spool: nothing else was written, and the spool goes.
Error nothing_changed_if_interrupted(Error error) {
  if (is_interruption(error.code)) error.message += ": nothing was changed, the toolkit is as it was before.";
  return error;
}

}  // namespace

Result<PlannedInstall> plan_install(const InstallRequest& request, const Toolkit& toolkit, InstallServices& services) {
  TRY_ASSIGN(auto inspected, inspect_and_check(request, toolkit, services));
  EnvStep env;
  if (services.plan_env) {
    TRY_ASSIGN(env, services.plan_env(toolkit, inspected.archive.header_version.major));
  }
  TRY_ASSIGN(auto scanned, scan_and_plan(inspected.archive, toolkit, env, services.fs));
  auto needs = runtime_needs_of(inspected.archive, toolkit, services);
  return PlannedInstall{std::move(inspected), std::move(env), std::move(scanned.plan), scanned.files_read,
                        std::move(needs)};
}

Result<InstallResult> install(const InstallRequest& request, const Toolkit& toolkit, InstallServices& services,
                              const InstallHooks& hooks) {
  SpoolRemover spool_remover(services.fs, spool_dir(toolkit.root));
  auto planned = plan_install(request, toolkit, services);
  if (!planned) return std::unexpected(nothing_changed_if_interrupted(planned.error()));
  if (hooks.show) hooks.show(*planned);
  InstallResult result{std::move(*planned), std::nullopt, Interruption::None};
  const PlannedInstall& p = result.planned;
  if (!p.plan.changes_anything()) {
    remember_inspected(services.fs, toolkit, p.inspected);
    if (p.files_read > 0) stamp_installed(services.fs, toolkit, p.plan);
    return result;
  }
  if (hooks.approve) TRY(hooks.approve(p));
  ApplyOptions options = request.apply;
  options.sha256 = p.inspected.integrity.sha256;
  TRY_ASSIGN(result.txn, apply_plan(services.fs, toolkit.root, p.inspected.archive, p.plan, options));
  spdlog::info("committed transaction {}", result.txn->id);
  if (options.interrupts) result.late_signal = options.interrupts->raised(Checkpoint::Commit);
  stamp_installed(services.fs, toolkit, p.plan, result.txn->written);
  remember_inspected(services.fs, toolkit, p.inspected);
  return result;
}

}  // namespace cudnn_install
