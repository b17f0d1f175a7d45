// `cudnn-install ARCHIVE`: inspect -> choose toolkit -> lock -> recover -> scan -> plan -> confirm -> apply.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/report.hpp"
#include "cudnn_install/state_lock.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"
#include "inspect.hpp"
#include "progress.hpp"

namespace cudnn_install::cli {
namespace {

// The plan, and how many existing files had to be read to compare them (the others had stamps).
struct Planned {
  Plan plan;
  std::size_t files_read = 0;
  std::vector<RuntimeNeed> runtime_needs;  // Windows: zlibwapi.dll, the VC++ runtime
};

Result<Planned> plan_for(const ArchiveInfo& archive, const Toolkit& toolkit, const EnvStep& env, FileSystem& fs) {
  FileStamps stamps = read_file_stamps(fs, toolkit.root);
  auto tree = scan_tree(fs, archive, toolkit, known_crc_from(fs, stamps));
  if (!tree) return std::unexpected(tree.error());
  spdlog::debug("{} existing files read to compare them, the others known from their stamps", tree->files_read);
  PlanOptions options;
  options.generated = env.files;
  options.env_edit = env.edit;
  options.env_entry = env.entry;
  auto plan = make_plan(archive, toolkit, *tree, options);
  if (!plan) return std::unexpected(plan.error());
  return Planned{std::move(*plan), tree->files_read, {}};
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

EnvChanged env_changed_by(const Plan& plan) {
  EnvChanged changed;
  for (const auto& s : plan.steps)
    changed.loader_config |= s.role == Role::LoaderConfig && s.action != Action::SkipIdentical;
  changed.path = plan.env_edit.has_value();
  return changed;
}

void print_env_step(const EnvStep& env, const Options& o) {
  if (o.format == Format::Json) answer()["environment"] = env.lines;
  if (o.format != Format::Text || o.verbosity == Verbosity::Quiet) return;
  for (const auto& line : env.lines) std::cout << line << "\n";
}

// What the archive's cuDNN needs on Windows besides its own files (the rules doctor uses).
std::vector<RuntimeNeed> runtime_needs_of(const ArchiveInfo& archive, const Toolkit& toolkit) {
  if (toolkit.os != TargetOs::Windows) return {};
  const CudnnVersion& v = archive.header_version;
  return windows_runtime_needs(v.major, v.minor, toolkit.root / toolkit.bin_dir, windows_runtime_evidence(toolkit));
}

void print_runtime_needs(const std::vector<RuntimeNeed>& needs, const Options& o) {
  for (const auto& need : needs) {
    if (need.required) answer().warn(need.summary + "; fix: " + need.fix);
    if (o.format != Format::Text || o.verbosity == Verbosity::Quiet) continue;
    std::cout << (need.required ? "warning  " : "note     ") << need.summary << "\n";
    for (const auto& e : need.evidence) std::cout << "         " << e << "\n";
    std::cout << "    fix: " << need.fix << "\n";
  }
}

void print_plan(const Plan& plan, const Inspected& in, const Toolkit& toolkit, const Options& o) {
  const IntegrityCheck& integrity = in.integrity;
  bool match = integrity.verdict == IntegrityCheck::Verdict::Match;
  if (o.format == Format::Json) {
    answer()["toolkit"] = toolkit.root.string();
    answer()["plan"] = nested(plan_to_json(plan, in.archive, toolkit));
    answer()["integrity"] = {{"sha256", integrity.sha256},
                             {"verdict", match ? "match" : "unknown"},
                             {"source", integrity.source},
                             {"note", integrity.note},
                             {"remembered_at", in.remembered_at}};
  } else if (o.verbosity != Verbosity::Quiet) {
    std::cout << "sha256   " << integrity.sha256 << "\n         "
              << (match ? "matches " + integrity.source : "not checked: unknown archive (see the warning)") << "\n";
    if (!in.remembered_at.empty())
      std::cout << "         (hashed and listed when this toolkit got it at " << in.remembered_at
                << "; the file is unchanged since: same size, inode and change time)\n";
    std::cout << render_plan_text(plan, in.archive, toolkit);
  }
}

// The environment step and the plan, both shown: what a dry run prints and a real run asks about.
Result<Planned> plan_and_show(const Inspected& in, const Toolkit& toolkit, FileSystem& fs, const Options& o) {
  auto env = plan_env_step(toolkit, in.archive.header_version.major, o);
  if (!env) return std::unexpected(env.error());
  auto planned = plan_for(in.archive, toolkit, *env, fs);
  if (!planned) return planned;
  print_plan(planned->plan, in, toolkit, o);
  print_env_step(*env, o);
  planned->runtime_needs = runtime_needs_of(in.archive, toolkit);
  print_runtime_needs(planned->runtime_needs, o);
  return planned;
}

// After an install that found something the cuDNN still needs: where to look at the whole setup.
void point_to_doctor(const std::vector<RuntimeNeed>& needs, const Toolkit& toolkit, const Options& o) {
  if (needs.empty() || o.format != Format::Text || o.verbosity == Verbosity::Quiet) return;
  std::cout << "before using this cuDNN, see the warnings about what it still needs (above); for the whole setup "
               "run: "
            << command_to_paste({"doctor", "--cuda-root", path_arg(toolkit.root)}) << "\n";
}

}  // namespace

Result<void> confirm(const Options& o, const std::string& doing, Interrupts* interrupts) {
  if (o.confirm == Confirm::AssumeYes) return {};
  if (!is_terminal(0))
    return fail(ErrorCode::Usage, "no terminal to ask for confirmation: pass --yes to " + doing + " without asking");
  std::cout << "\nProceed? [y/N] " << std::flush;
  std::string answer;
  std::getline(std::cin, answer);  // a signal ends the wait (its handler does not restart the read)
  if (auto r = stop_if_interrupted(interrupts, Checkpoint::Prompt); !r) {
    std::cout << "\n";
    return fail(r.error().code, r.error().message + ": nothing was changed, the toolkit is as it was before.");
  }
  if (answer == "y" || answer == "Y" || answer == "yes") return {};
  return fail(ErrorCode::Usage, "cancelled; nothing was changed");
}

namespace {

// The command that undoes the install, as argv: this very program, so that a script need not find it on PATH.
std::vector<std::string> undo_command(const Toolkit& toolkit) {
  auto exe = current_executable().u8string(), root = toolkit.root.u8string();  // UTF-8, as JSON is
  return {std::string(exe.begin(), exe.end()), "--rollback", "--cuda-root", std::string(root.begin(), root.end())};
}

// A signal that came too late to stop the install (after its commit record): the install stands,
// and the command stops there, before verifying, with the signal's exit code.
int interrupted_after_commit(Interruption late, const Toolkit& toolkit, const TxnOutcome& outcome, const Options& o) {
  return report_error(Error{error_code_for(late),
                            describe(late) + " came after the install was committed (transaction " + outcome.id +
                                "): cuDNN is installed, not verified. Undo it with: " +
                                command_to_paste({"--rollback", "--cuda-root", path_arg(toolkit.root)}),
                            ""},
                      o);
}

// Applies the plan, verifies it; `committed` tells whether the install stands (whatever the exit code).
int apply(const ArchiveInfo& archive, const Toolkit& toolkit, const Plan& plan, const std::string& sha256,
          Session& session, const Options& o, bool& committed) {
  ProgressBar bar(o);
  ApplyOptions options;
  options.sha256 = sha256;
  options.progress = bar.callback();
  options.env = session.env.get();
  options.in_use = o.replace_in_use ? InUse::RenameAside : InUse::Refuse;
  options.interrupts = session.interrupts.get();
  auto outcome = apply_plan(*session.fs, toolkit.root, archive, plan, options);
  if (!outcome) return report_error(outcome.error(), o);
  committed = true;
  auto late = session.interrupts ? session.interrupts->raised(Checkpoint::Commit) : Interruption::None;
  session.interrupts.reset();  // from here on (verify, the benchmark) a signal ends the process as usual
  if (late != Interruption::None) {
    stamp_installed(*session.fs, toolkit, plan, outcome->written);
    return interrupted_after_commit(late, toolkit, *outcome, o);
  }
  answer()["result"] = "installed";
  answer()["changed"] = true;
  answer()["transaction"] = {{"id", outcome->id},
                             {"files_written", outcome->files_written},
                             {"files_removed", outcome->files_removed},
                             {"files_unchanged", outcome->files_unchanged},
                             {"undo", undo_command(toolkit)}};
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "\ninstalled cuDNN " << plan.cudnn_version << " into " << toolkit.root.string() << " (transaction "
              << outcome->id << "): " << outcome->files_written << " files written, " << outcome->files_removed
              << " removed, " << outcome->files_unchanged
              << " unchanged.\nundo with: " << command_to_paste({"--rollback", "--cuda-root", path_arg(toolkit.root)})
              << "\n";
  if (o.replace_in_use && o.format == Format::Text && o.verbosity != Verbosity::Quiet)
    std::cout << "--replace-in-use: programs that had old cuDNN DLLs loaded keep them until they restart (or until a "
                 "reboot); the old files are deleted once no program uses them.\n";
  spdlog::info("committed transaction {}", outcome->id);
  stamp_installed(*session.fs, toolkit, plan, outcome->written);
  if (o.no_verify) return 0;
  if (o.format == Format::Text && o.verbosity != Verbosity::Quiet) std::cout << "\n";
  return run_verify(toolkit, plan.cudnn_version, o);
}

// Stopped while the archive was read into the spool: nothing else was written, and the spool goes.
Error nothing_changed_if_interrupted(Error error) {
  if (error.code == ErrorCode::Interrupted || error.code == ErrorCode::Terminated || error.code == ErrorCode::HungUp)
    error.message += ": nothing was changed, the toolkit is as it was before.";
  return error;
}

// The toolkit is chosen from the file name alone, so that a tar.xz can be decoded once, straight
// into the toolkit's spool, under the lock (a zip's directory is read where it lies).
Result<Toolkit> toolkit_for(const Options& o) {
  auto name = parse_archive_name(o.archive.filename().string());
  if (!name && name_check(o) == NameCheck::Enforce) return std::unexpected(name.error());
  return choose_cli_toolkit(o, ToolkitPurpose::Install, name ? std::optional(name->cuda.major) : std::nullopt);
}

// Writes nothing: the archive is listed (a tar.xz decoded into nothing), the plan shown.
// It also foresees what the real run would stop at (the lock, rights, space, programs holding
// files with --require-no-holders): "would fail: ..." with the real run's exit code.
int dry_run(const Toolkit& toolkit, const Options& o) {
  auto fs = make_real_filesystem();
  if (auto lock = check_state_lock_possible(*fs, toolkit.root); !lock) return report_would_fail(lock.error(), o);
  auto inspected = inspect_and_check(toolkit, *fs, Spooling::None, o);
  if (!inspected) return report_error(inspected.error(), o);
  if (has_pending_journal(toolkit.root))
    spdlog::warn("an interrupted transaction is pending in {}; the next real run will restore it first",
                 toolkit.root.string());
  answer()["dry_run"] = true;
  answer()["result"] = "dry_run";
  auto planned = plan_and_show(*inspected, toolkit, *fs, o);
  if (!planned) return report_error(planned.error(), o);
  answer()["changed"] = planned->plan.changes_anything();  // what the real run would do
  if (planned->plan.changes_anything()) {
    if (auto ok = check_holders(files_replaced(planned->plan, toolkit.root), o); !ok)
      return report_would_fail(ok.error(), o);
    auto forecast = forecast_install(*fs, toolkit.root, planned->plan);
    if (!forecast) return report_would_fail(forecast.error(), o);
    for (const auto& w : forecast->warnings) {
      answer().warn(w);
      if (o.format == Format::Text && o.verbosity != Verbosity::Quiet) std::cout << "warning  " << w << "\n";
    }
  }
  if (o.format == Format::Text) std::cout << "dry run: nothing was written.\n";
  return 0;
}

}  // namespace

int cmd_install(const Options& o) {
  auto toolkit = toolkit_for(o);
  if (!toolkit) return report_error(toolkit.error(), o);
  if (o.mode == Mode::DryRun) return dry_run(*toolkit, o);
  auto session = open_session(toolkit->root, o);
  if (!session) return report_error(session.error(), o);
  SpoolCleanup cleanup{*session->fs, spool_dir(toolkit->root)};
  auto inspected = inspect_and_check(*toolkit, *session->fs, Spooling::IntoToolkit, o, session->interrupts.get());
  if (!inspected) return report_error(nothing_changed_if_interrupted(inspected.error()), o);
  const ArchiveInfo& archive = inspected->archive;
  auto planned = plan_and_show(*inspected, *toolkit, *session->fs, o);
  if (!planned) return report_error(planned.error(), o);
  const Plan& plan = planned->plan;
  if (!plan.changes_anything()) {
    answer()["result"] = "already_installed";
    remember(*session->fs, *toolkit, *inspected);
    if (planned->files_read > 0) stamp_installed(*session->fs, *toolkit, plan);
    if (o.format == Format::Text)  // the blank line parts it from the plan, which -q does not show
      std::cout << (o.verbosity == Verbosity::Quiet ? "" : "\n") << "cuDNN " << plan.cudnn_version
                << " is already installed here: nothing to do.\n";
    return 0;
  }
  auto replaced = files_replaced(plan, toolkit->root);
  if (auto ok = check_holders(replaced, o); !ok) return report_error(ok.error(), o);
  if (auto ok = allow_writes_outside(dirs_outside_real_root(toolkit->root, plan), o, "install"); !ok)
    return report_error(ok.error(), o);
  if (auto ok = confirm(o, "install", session->interrupts.get()); !ok) return report_error(ok.error(), o);
  bool installed = false;
  int rc = apply(archive, *toolkit, plan, inspected->integrity.sha256, *session, o, installed);
  if (installed) remember(*session->fs, *toolkit, *inspected);
  if (installed) report_still_running_old(replaced, o);
  if (installed) after_env_change(env_changed_by(plan), o);
  if (installed) point_to_doctor(planned->runtime_needs, *toolkit, o);
  return rc;
}

}  // namespace cudnn_install::cli
