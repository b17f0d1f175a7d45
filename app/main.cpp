// cudnn-install: deploy an NVIDIA cuDNN archive into a CUDA toolkit as one safe, reversible step.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/releases.hpp"
#include "path_option.hpp"

namespace {

constexpr const char* kDescription = R"(cudnn-install - deploy an NVIDIA cuDNN archive into a CUDA toolkit, safely.

It checks the archive (name, cudnn_version.h, unsafe entries), finds the CUDA toolkit
and refuses a cuDNN built for another CUDA major, then shows or applies the plan.

Examples:
  cudnn-install 9.19 --yes          (the newest 9.19 for the detected toolkit: download, verify, install)
  cudnn-install --dry-run cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip
  cudnn-install cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz --cuda-root /usr/local/cuda-13.0
  cudnn-install --rollback
  cudnn-install status

Exit codes: 0 ok, 1 usage, 2 refused input, 3 conflict (lock, files in use, toolkit
choice), 4 I/O failure (rolled back), 5 verification failed, 6 nothing to do,
129/130/143 stopped by SIGHUP/SIGINT (Ctrl-C)/SIGTERM and rolled back.)";

void add_common(CLI::App& app, cudnn_install::cli::Options& o, bool& json, bool& quiet, bool& verbose) {
  cudnn_install::cli::add_path_option(app, "--cuda-root", o.cuda_root, "CUDA toolkit directory (default: detected)");
  app.add_flag("--json", json,
               "one JSON object on stdout, errors included (schema cudnn-install/2, docs/json-schema.md)");
  app.add_flag("-q,--quiet", quiet, "only errors");
  app.add_flag("-v,--verbose", verbose, "debug messages on stderr");
  cudnn_install::cli::add_path_option(app, "--log", o.log_file, "write a detailed log to FILE");
}

// `fetch VERSION` and `list`: what they choose by (CUDA major, platform) and where from (mirror).
void add_fetch_commands(CLI::App& app, cudnn_install::cli::Options& o, bool& json, bool& quiet, bool& verbose) {
  auto* fetch = app.add_subcommand("fetch", "download and verify a cuDNN release's archive (for offline machines)");
  auto* list = app.add_subcommand("list", "the cuDNN releases for this toolkit's CUDA major and this platform");
  fetch->add_option("version", o.version, "9, 9.19, 9.19.0 or 9.19.0.56 (the newest that matches)")->required();
  cudnn_install::cli::add_path_option(*fetch, "-o,--output", o.output_dir,
                                      "also put the archive in DIR (it stays in the cache too)");
  for (auto* sub : {fetch, list}) {
    add_common(*sub, o, json, quiet, verbose);
    sub->add_option("--cuda", o.cuda, "CUDA major (default: the detected toolkit's)");
    sub->add_option("--platform", o.platform,
                    "linux-x86_64, linux-sbsa, linux-aarch64, windows-x86_64 (default: this one)");
    sub->add_option("--mirror", o.mirror, "http(s) URL of a copy of NVIDIA's redist directory");
  }
}

// --json before any "--": known before parsing, so that a command line CLI11 rejects still gets
// its answer as JSON.
bool asks_for_json(const std::vector<std::string>& args) {
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i)
    if (args[i] == "--json") return true;
  return false;
}

// CLI11 lists unexpected arguments last first; here they come in the order typed, each quoted, with
// the usual cause: a path with spaces split into words (cmd and PowerShell group only on "...").
std::string usage_message(const CLI::App& app, const CLI::ParseError& e) {
  std::vector<std::string> extras = app.remaining(true);
  if (!dynamic_cast<const CLI::ExtrasError*>(&e) || extras.empty()) return e.what();
  std::string message = extras.size() == 1 ? "this argument was not expected:" : "these arguments were not expected:";
  for (const auto& arg : extras) message += " '" + arg + "'";
#ifdef _WIN32
  constexpr const char* kQuotedPath = "--cuda-root \"C:\\Program Files\\...\"";
#else
  constexpr const char* kQuotedPath = "--cuda-root \"/opt/my cuda\"";
#endif
  if (extras.size() > 1) message += std::string(" (a path with spaces goes in quotes: ") + kQuotedPath + ")";
  return message;
}

// What CLI11 ends a parse with: help and --version (exit 0), or a usage error (exit 1, whatever
// CLI11's own code: the README's table has one code for every bad command line).
int parse_ended(const CLI::App& app, const CLI::ParseError& e, cudnn_install::cli::Format format) {
  using namespace cudnn_install::cli;
  bool help = dynamic_cast<const CLI::CallForHelp*>(&e) || dynamic_cast<const CLI::CallForAllHelp*>(&e);
  bool version = dynamic_cast<const CLI::CallForVersion*>(&e) != nullptr;
  if (format == Format::Text) {
    if (help || version) return app.exit(e);
    std::cerr << "cudnn-install: error: " << usage_message(app, e) << "\nRun with --help for more information.\n";
    return 1;
  }
  if (help || version) {
    answer().begin(help ? "help" : "version");
    if (help) answer()["text"] = app.help();
    if (version) answer()["version"] = CUDNN_INSTALL_VERSION;
    return 0;
  }
  // The command the line names, where CLI11 got that far (`status a b`: "status").
  for (const auto* sub : app.get_subcommands()) answer().begin(sub->get_name());
  answer().fail(
      {cudnn_install::ErrorCode::Usage, usage_message(app, e) + "; cudnn-install --help shows the usage", ""});
  return 1;
}

// The command the parsed line asks for, as the answer's kind.
std::string command_of(const CLI::App& app, bool rollback) {
  for (const auto* sub : app.get_subcommands()) return sub->get_name();
  return rollback ? "rollback" : "install";
}

// `cudnn-install rollback` means --rollback: the word is no file, so say what the user meant.
bool rollback_as_archive(const std::filesystem::path& archive) {
  std::error_code ec;
  return archive == "rollback" && !std::filesystem::exists(archive, ec);
}

int dispatch(const std::string& command, CLI::App& app, cudnn_install::cli::Options& o) {
  using namespace cudnn_install::cli;
  if (command == "status") return cmd_status(o);
  if (command == "verify") return cmd_verify(o);
  if (command == "bench") return cmd_bench(o);
  if (command == "uninstall") return cmd_uninstall(o);
  if (command == "doctor") return cmd_doctor(o);
  if (command == "fetch") return cmd_fetch(o);
  if (command == "list") return cmd_list(o);
  if (command == "rollback") return cmd_rollback(o);
  if (o.archive.empty()) {
    int rc =
        report_error({cudnn_install::ErrorCode::Usage, "no archive given: name a cuDNN archive or a version", ""}, o);
    if (o.format == Format::Text) std::cerr << "\n" << app.help();
    return rc;
  }
  if (rollback_as_archive(o.archive))
    return report_error({cudnn_install::ErrorCode::Usage,
                         "'rollback' is not a command (nor a file here): to undo the last install, run "
                         "cudnn-install --rollback (with the same other options)",
                         "rollback"},
                        o);
  auto archive = cudnn_install::archive_argument(o.archive);
  if (!archive) return report_error(archive.error(), o);
  o.archive = *archive;
  if (cudnn_install::looks_like_version(o.archive.string()) && !std::filesystem::exists(o.archive))
    return cmd_install_version(o);
  return cmd_install(o);
}

// With --json, stdout carries the answer alone: anything else a command prints goes to stderr.
class StdoutToStderr {
 public:
  explicit StdoutToStderr(bool active) : saved_(active ? std::cout.rdbuf(std::cerr.rdbuf()) : nullptr) {}
  ~StdoutToStderr() {
    if (saved_) std::cout.rdbuf(saved_);
  }

 private:
  std::streambuf* saved_;
};

}  // namespace

int run_command_line(int argc, char** argv) {
  using namespace cudnn_install::cli;
  const std::vector<std::string> args = cudnn_install::command_line_arguments(argc, argv);
  const cudnn_install::Utf8Console console;
  if (args.size() == 3 && args[1] == kProbeArgument) return cmd_probe(cudnn_install::utf8_path(args[2]));  // verify
  Options o;
  bool dry_run = false, yes = false, json = false, quiet = false, verbose = false, rollback = false;
  CLI::App app{kDescription, "cudnn-install"};
  app.set_version_flag("--version", std::string("cudnn-install ") + CUDNN_INSTALL_VERSION);
  add_path_option(app, "archive", o.archive,
                  "cuDNN archive (.zip for Windows, .tar.xz/.tgz for Linux), or a version (9, 9.19, 9.19.0.56) to "
                  "download and install");
  app.add_option("--mirror", o.mirror,
                 "http(s) URL of a copy of NVIDIA's redist directory (default: CUDNN_INSTALL_MIRROR, else NVIDIA's)");
  add_common(app, o, json, quiet, verbose);
  app.add_flag("--dry-run", dry_run, "show every change, write nothing");
  app.add_flag("-y,--yes", yes, "do not ask for confirmation");
  app.add_flag("--rollback", rollback, "undo the last install, byte for byte");
  app.add_flag("--force-name", o.force_name,
               "no longer needed, kept for old scripts: a renamed archive is recognised by its sha256 or its content "
               "and checked as NVIDIA's archive of that name");
  add_path_option(app, "--manifest", o.manifest, "NVIDIA redistrib_<version>.json to check the sha256 against");
  app.add_flag("--no-path", o.no_path, "do not change PATH / the loader configuration");
  app.add_flag("--system", o.system_scope, "change the system PATH (HKLM) instead of the user's");
  app.add_flag("--no-verify", o.no_verify, "skip the verification after installing");
  app.add_flag("--no-bench", o.no_bench, "skip the short GPU benchmark after installing");
  app.add_flag("--replace-in-use", o.replace_in_use, "Windows: rename DLLs in use aside and replace them");
  app.add_option(
         "--loader-config", o.loader_config,
         "Linux: system (add /etc/ld.so.conf.d/cudnn-install-<toolkit path>.conf, run ldconfig), print (show the "
         "LD_LIBRARY_PATH line), none; default: system as root, else print")
      ->check(CLI::IsMember({"auto", "system", "print", "none"}));
  app.add_flag("--require-no-holders", o.require_no_holders,
               "Linux: refuse to install while a process uses a file it would replace (default: warn)");
  const std::pair<const char*, const char*> commands[] = {
      {"doctor",
       "diagnose the cuDNN setup: shadowing copies, missing or mixed libraries, driver, loader, build variables"},
      {"verify", "check the installed cuDNN: header, libraries, sub-libraries, load it in a child process"},
      {"bench", "GPU convolution benchmark of the installed cuDNN, every result checked against a CPU reference"},
      {"status", "toolkits, their cuDNN, and this tool's transactions"},
      {"uninstall",
       "undo what cudnn-install installed, restoring what it replaced (--force: also cuDNN it did not install)"}};
  for (const auto& [name, help] : commands) add_common(*app.add_subcommand(name, help), o, json, quiet, verbose);
  add_bench_options(*app.get_subcommand("bench"), o.bench);
  app.get_subcommand("uninstall")
      ->add_flag("--force", o.force, "also remove cuDNN files cudnn-install did not install");
  app.get_subcommand("uninstall")->add_flag("-y,--yes", yes, "do not ask for confirmation");
  app.get_subcommand("uninstall")->add_flag("--dry-run", dry_run, "show every change, write nothing");
  add_fetch_commands(app, o, json, quiet, verbose);
  o.format = asks_for_json(args) ? Format::Json : Format::Text;
  int rc = 0;
  try {
    std::vector<const char*> pointers;
    pointers.reserve(args.size());
    for (const auto& arg : args) pointers.push_back(arg.c_str());
    app.parse(static_cast<int>(pointers.size()), pointers.data());
    o.mode = dry_run ? Mode::DryRun : Mode::Apply;
    o.confirm = yes ? Confirm::AssumeYes : Confirm::Ask;
    o.format = json ? Format::Json : Format::Text;
    o.verbosity = quiet ? Verbosity::Quiet : verbose ? Verbosity::Verbose : Verbosity::Normal;
    setup_logging(o);
    std::string command = command_of(app, rollback);
    answer().begin(command);
    if (o.mode == Mode::DryRun) answer().mark_dry_run();
    StdoutToStderr redirect(o.format == Format::Json);
    GivenFlags given{quiet, verbose, rollback, dry_run, yes, ""};
    for (auto* sub : app.get_subcommands()) given.subcommand = sub->get_name();
    auto flags = check_flag_combinations(app, o, given);
    rc = flags ? dispatch(command, app, o) : report_error(flags.error(), o);
  } catch (const CLI::ParseError& e) {
    rc = parse_ended(app, e, o.format);
  }
  if (o.format == Format::Json) std::cout << answer().to_json(rc).dump(2) << "\n";
  return rc;
}

// The library reports failures as values; an exception reaching here is a bug in this program. It is
// said plainly, with its own exit code, instead of aborting.
int main(int argc, char** argv) {
  try {
    return run_command_line(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudnn-install: internal error (a bug; please report it): %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "cudnn-install: internal error (a bug; please report it)\n");
  }
  return 70;
}
