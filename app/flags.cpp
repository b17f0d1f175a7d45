// Flags that contradict each other, or that the chosen command would ignore, are usage errors: a
// flag accepted and then ignored is a request silently not done (issue 19).
#include <string>
#include <vector>

#include "cli.hpp"
#include "cudnn_install/releases.hpp"

namespace cudnn_install::cli {
namespace {

// The flags of an install that nothing else reads.
constexpr const char* kInstallOnly[] = {"--manifest",       "--force-name",         "--no-path",
                                        "--system",         "--no-verify",          "--no-bench",
                                        "--replace-in-use", "--require-no-holders", "--loader-config"};

bool given(const CLI::App& app, const char* flag) { return app.count(flag) > 0; }

Result<void> usage(std::string message) { return fail(ErrorCode::Usage, std::move(message)); }

// The first install-only flag given on the top level, or "".
std::string install_flag_given(const CLI::App& app) {
  for (const char* flag : kInstallOnly)
    if (given(app, flag)) return flag;
  return "";
}

Result<void> check_install_flags(const CLI::App& app, const Options& o, const std::string& command) {
  if (std::string flag = install_flag_given(app); !flag.empty() && command != "install")
    return usage(flag + " applies to an install, not to " + command + ": leave it out");
  if (o.no_path && given(app, "--loader-config") && o.loader_config != "none")
    return usage("--no-path and --loader-config " + o.loader_config +
                 " contradict each other: pass one of them (--no-path is --loader-config none)");
  if (o.no_path && o.system_scope)
    return usage("--no-path and --system contradict each other: --system chooses which PATH to change");
  if (o.replace_in_use && o.require_no_holders)
    return usage("--replace-in-use and --require-no-holders contradict each other: pass one of them");
  return {};
}

}  // namespace

EnvStepOptions env_step_options(const Options& o) {
  EnvStepOptions env;
  env.change = o.no_path ? EnvChange::Leave : EnvChange::Make;
  env.loader = o.loader_config == "system"  ? LoaderConfig::System
               : o.loader_config == "print" ? LoaderConfig::Print
               : o.loader_config == "none"  ? LoaderConfig::None
                                            : LoaderConfig::Auto;
  env.scope = o.system_scope ? EnvScope::System : EnvScope::User;
  env.show = o.mode == Mode::DryRun ? ShowPathValues::BeforeAndAfter : ShowPathValues::No;
  return env;
}

Result<void> check_flag_combinations(const CLI::App& app, const Options& o, const GivenFlags& g) {
  if (g.quiet && g.verbose) return usage("--quiet and --verbose contradict each other: pass one of them");
  std::string command = g.subcommand.empty() ? (g.rollback ? "--rollback" : "install") : g.subcommand;
  if (g.rollback && !g.subcommand.empty())
    return usage("--rollback and `" + g.subcommand + "` are two commands: run them one at a time");
  if (g.rollback && !o.archive.empty())
    return usage("--rollback undoes the last transaction and takes no archive ('" + o.archive.string() +
                 "'): leave the archive out, or drop --rollback to install it");
  if (!g.subcommand.empty() && !o.archive.empty())
    return usage("'" + o.archive.string() + "' is not an argument of `" + g.subcommand + "`");
  if (g.dry_run && !g.subcommand.empty() && g.subcommand != "uninstall")
    return usage("--dry-run applies to an install, --rollback and uninstall; `" + g.subcommand +
                 "` changes nothing anyway");
  if (g.yes && !g.subcommand.empty() && g.subcommand != "uninstall")
    return usage("--yes applies to an install, --rollback and uninstall; `" + g.subcommand + "` asks nothing");
  bool by_version =
      command == "install" && looks_like_version(o.archive.string()) && !std::filesystem::exists(o.archive);
  if (given(app, "--mirror") && !by_version && command != "fetch" && command != "list")
    return usage("--mirror applies to an install by version (cudnn-install 9.19), not to " +
                 (command == "install" ? "an archive file" : command) + ": leave it out");
  return check_install_flags(app, o, command);
}

}  // namespace cudnn_install::cli
