// `cudnn-install ARCHIVE`: choose the toolkit, open the session (lock, recovery), then the library's
// install() (install.hpp) with this file's hooks: show the plan, check holders, ask. Then print
// what it did and verify.
#include <spdlog/spdlog.h>

#include <iostream>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/archive_identity.hpp"
#include "cudnn_install/install.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/report.hpp"
#include "cudnn_install/state_lock.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"
#include "cudnn_install/utf8.hpp"
#include "progress.hpp"

namespace cudnn_install::cli {
namespace {

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

// The plan, its environment step and what cuDNN still needs: what a dry run prints and a real run asks about.
void show_planned(const PlannedInstall& p, const Toolkit& toolkit, const Options& o) {
  print_plan(p.plan, p.inspected, toolkit, o);
  print_env_step(p.env, o);
  print_runtime_needs(p.runtime_needs, o);
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
  if (std::cin.rdbuf()->in_avail() > 0 || wait_for_input(interrupts, Checkpoint::Prompt) == Interruption::None)
    std::getline(std::cin, answer);  // a signal during the read ends it too (its handler does not restart it)
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
  return {utf8_text(current_executable()), "--rollback", "--cuda-root", utf8_text(toolkit.root)};  // UTF-8, as JSON is
}

// A signal that came too late to stop the install (after its commit record): the install stands,
// and the command stops there, before verifying, with the signal's exit code.
int interrupted_after_commit(Interruption late, const Toolkit& toolkit, const TxnOutcome& txn, const Options& o) {
  return report_error(Error{error_code_for(late),
                            describe(late) + " came after the install was committed (transaction " + txn.id +
                                "): cuDNN is installed, not verified. Undo it with: " + rollback_to_paste(toolkit.root),
                            ""},
                      o);
}

// What the install did, then the verification; returns the exit code.
int report_installed(const InstallResult& result, const TxnOutcome& txn, const Toolkit& toolkit, const Options& o) {
  const Plan& plan = result.planned.plan;
  answer()["result"] = "installed";
  answer()["changed"] = true;
  answer()["transaction"] = {{"id", txn.id},
                             {"files_written", txn.files_written},
                             {"files_removed", txn.files_removed},
                             {"files_unchanged", txn.files_unchanged},
                             {"undo", undo_command(toolkit)}};
  bool text = o.format == Format::Text && o.verbosity != Verbosity::Quiet;
  if (text)
    std::cout << "\ninstalled cuDNN " << plan.cudnn_version << " into " << toolkit.root.string() << " (transaction "
              << txn.id << "): " << txn.files_written << " files written, " << txn.files_removed << " removed, "
              << txn.files_unchanged << " unchanged.\nundo with: " << rollback_to_paste(toolkit.root) << "\n";
  if (o.replace_in_use && text)
    std::cout << "--replace-in-use: programs that had old cuDNN DLLs loaded keep them until they restart (or until a "
                 "reboot); the old files are deleted once no program uses them.\n";
  if (o.no_verify) return 0;
  if (text) std::cout << "\n";
  return run_verify(toolkit, plan.cudnn_version, o);
}

constexpr std::uint64_t kShowProgressFrom = 64u << 20;  // smaller archives take well under a second

struct Identified {
  ArchiveIdentity identity;
  Toolkit toolkit;
};

// The toolkit is chosen by the archive's CUDA major before the archive is inspected, so that a
// tar.xz can be decoded once, straight into the toolkit's spool, under the lock (a zip's directory
// is read where it lies). NVIDIA's file name says it; a renamed file is hashed (and, unknown,
// listed) first to find which archive it is (archive_identity.hpp).
Result<Identified> toolkit_for(const Options& o) {
  if (o.force_name)
    spdlog::info("--force-name is no longer needed: a renamed archive is recognised by its sha256 or its content");
  auto identified = identify_archive(o.archive, o.manifest, percent_line(o, "sha256", kShowProgressFrom));
  if (!identified) return std::unexpected(identified.error());
  ArchiveIdentity& identity = *identified;
  if (!identity.how.empty()) spdlog::info("{}: {}", o.archive.string(), identity.how);  // the plan shows it too
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Install, identity.name.cuda.major);
  if (!toolkit) return std::unexpected(toolkit.error());
  return Identified{std::move(identity), std::move(*toolkit)};
}

// The flags as the library's request; `spooling` and `apply` filled in by the caller.
InstallRequest install_request(const Options& o, const ArchiveIdentity& identity, Spooling spooling) {
  InstallRequest request;
  request.archive = o.archive;
  request.manifest = o.manifest;
  request.identity = identity;
  request.spooling = spooling;
  request.apply.in_use = o.replace_in_use ? InUse::RenameAside : InUse::Refuse;
  return request;
}

InstallServices install_services(FileSystem& fs, const Options& o) {
  InstallServices services{fs};
  services.plan_env = [env = env_step_options(o)](const Toolkit& toolkit, int cudnn_major) {
    return plan_env_step(toolkit, cudnn_major, env);
  };
  services.runtime_evidence = windows_runtime_evidence;
  services.read_progress = percent_line(o, "reading", kShowProgressFrom);
  services.hash_progress = percent_line(o, "sha256", kShowProgressFrom);
  return services;
}

// Writes nothing: the archive is listed (a tar.xz decoded into nothing), the plan shown.
// It also foresees what the real run would stop at (the lock, rights, space, programs holding
// files with --require-no-holders): "would fail: ..." with the real run's exit code.
int dry_run(const ArchiveIdentity& identity, const Toolkit& toolkit, const Options& o) {
  auto fs = make_real_filesystem();
  if (auto lock = check_state_lock_possible(*fs, toolkit.root); !lock) return report_would_fail(lock.error(), o);
  auto services = install_services(*fs, o);
  auto planned = plan_install(install_request(o, identity, Spooling::None), toolkit, services);
  if (!planned) return report_error(planned.error(), o);
  if (has_pending_journal(toolkit.root))
    spdlog::warn("an interrupted transaction is pending in {}; the next real run will restore it first",
                 toolkit.root.string());
  answer()["dry_run"] = true;
  answer()["result"] = "dry_run";
  show_planned(*planned, toolkit, o);
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

int report_already_installed(const Plan& plan, const Options& o) {
  answer()["result"] = "already_installed";
  if (o.format == Format::Text)  // the blank line parts it from the plan, which -q does not show
    std::cout << (o.verbosity == Verbosity::Quiet ? "" : "\n") << "cuDNN " << plan.cudnn_version
              << " is already installed here: nothing to do.\n";
  return 0;
}

}  // namespace

int cmd_install(const Options& o) {
  auto identified = toolkit_for(o);
  if (!identified) return report_error(identified.error(), o);
  const Toolkit* toolkit = &identified->toolkit;
  if (o.mode == Mode::DryRun) return dry_run(identified->identity, *toolkit, o);
  auto session = open_session(toolkit->root, o);
  if (!session) return report_error(session.error(), o);
  ProgressBar bar(o);
  auto request = install_request(o, identified->identity, Spooling::IntoToolkit);
  request.apply.progress = bar.callback();
  request.apply.env = session->env.get();
  request.apply.interrupts = session->interrupts.get();
  auto services = install_services(*session->fs, o);
  std::vector<WatchedFile> replaced;
  InstallHooks hooks;
  hooks.show = [&](const PlannedInstall& p) { show_planned(p, *toolkit, o); };
  hooks.approve = [&](const PlannedInstall& p) -> Result<void> {
    replaced = files_replaced(p.plan, toolkit->root);
    if (auto ok = check_holders(replaced, o); !ok) return ok;
    if (auto ok = allow_writes_outside(dirs_outside_real_root(toolkit->root, p.plan), o, "install"); !ok) return ok;
    return confirm(o, "install", session->interrupts.get());
  };
  auto result = install(request, *toolkit, services, hooks);
  bar.end_line();
  if (!result) return report_error(with_rollback_to_finish(result.error(), toolkit->root), o);
  if (!result->txn) return report_already_installed(result->planned.plan, o);
  session->interrupts.reset();  // from here on (verify, the benchmark) a signal ends the process as usual
  int rc = result->late_signal != Interruption::None
               ? interrupted_after_commit(result->late_signal, *toolkit, *result->txn, o)
               : report_installed(*result, *result->txn, *toolkit, o);
  report_still_running_old(replaced, o);
  after_env_change(env_changed_by(result->planned.plan), o);
  point_to_doctor(result->planned.runtime_needs, *toolkit, o);
  return rc;
}

}  // namespace cudnn_install::cli
