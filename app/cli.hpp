// What the command line asked for, and the shared output helpers of the commands.
#pragma once
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <spdlog/common.h>
#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <memory>

#include "answer.hpp"
#include "cudnn_install/change.hpp"
#include "cudnn_install/doctor.hpp"
#include "cudnn_install/env.hpp"
#include "cudnn_install/env_step.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/install.hpp"
#include "cudnn_install/interrupt.hpp"
#include "cudnn_install/locks.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/process.hpp"
#include "cudnn_install/session.hpp"
#include "cudnn_install/state_lock.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {

enum class Format { Text, Json };
enum class Verbosity { Quiet, Normal, Verbose };
enum class Mode { Apply, DryRun };
enum class Confirm { Ask, AssumeYes };

// `bench` options, as typed (validated by cmd_bench).
struct BenchFlags {
  int batch = 128;
  std::string dtypes = "fp16,bf16";
  std::string layouts = "nhwc";
  std::string tiers = "legacy,graph";
  int batches = 10;
  int per_batch = 20;
  int settle_ms = 1000;
  int cool_ms = 0;
  int finalists = 4;
  int finalist_margin_percent = 5;
  std::string search = "knobs";
  std::string timing_data = "normal";
  std::string layers;  // comma list of name parts; empty: every layer
  bool quick = false;
  bool list_shapes = false;
  std::optional<std::filesystem::path> library;
};

struct Options {
  std::filesystem::path archive;
  std::optional<std::filesystem::path> cuda_root;
  std::optional<std::filesystem::path> manifest;
  std::optional<std::filesystem::path> log_file;
  Mode mode = Mode::Apply;
  Confirm confirm = Confirm::Ask;
  Format format = Format::Text;
  Verbosity verbosity = Verbosity::Normal;
  bool force_name = false;
  bool no_path = false;
  bool system_scope = false;
  bool no_verify = false;
  bool no_bench = false;
  bool replace_in_use = false;
  bool require_no_holders = false;
  bool force = false;                  // uninstall: also files cudnn-install did not install
  std::string loader_config = "auto";  // system | print | none | auto (system as root, else print)
  BenchFlags bench;
  // fetch, list, and `cudnn-install VERSION`
  std::string version;                              // fetch VERSION
  std::optional<std::string> mirror;                // --mirror URL (else CUDNN_INSTALL_MIRROR, else NVIDIA)
  std::optional<std::string> platform;              // --platform (else this machine's)
  std::optional<int> cuda;                          // --cuda N (else the detected toolkit's major)
  std::optional<std::filesystem::path> output_dir;  // fetch -o DIR
};

// What was given on the command line beyond Options, for check_flag_combinations.
struct GivenFlags {
  bool quiet = false, verbose = false, rollback = false, dry_run = false, yes = false;
  std::string subcommand;  // "" for an install or --rollback
};
// A usage error when flags contradict each other or the command would ignore one of them.
Result<void> check_flag_combinations(const CLI::App& app, const Options& options, const GivenFlags& given);

// A command for people to paste: this program (by name when PATH finds it, else its full path)
// and `args`, quoted for the shell of this platform (sh; PowerShell on Windows).
std::string command_to_paste(const std::vector<std::string>& args);
// A path as a UTF-8 argument of command_to_paste.
std::string path_arg(const std::filesystem::path& path);
// `--rollback --cuda-root ROOT` to paste: the undo an install prints, and what finishes a restore.
std::string rollback_to_paste(const std::filesystem::path& root);
// An install, rollback or uninstall that failed with its restore left journalled (the library says
// to roll back again): the error then ends with the command that does it, as this program prints one.
Error with_rollback_to_finish(Error error, const std::filesystem::path& root);

// What a dry run foresees the real run would stop at: "would fail: ..." and the real run's exit code.
int report_would_fail(Error error, const Options& options);
// The error that ends the command: text on stderr, or the answer's error (printed by main); returns
// its exit code.
int report_error(const Error& error, const Options& options);
// An error after the command's work was done (ldconfig failed, say): a warning, the answer stands.
void report_warning(const Error& error);
// Sets up spdlog: stderr at the chosen verbosity, plus --log FILE when given.
void setup_logging(const Options& options);
// A log sink that appends to `path` (open_for_append: never through a link, only to a plain file).
Result<spdlog::sink_ptr> append_only_log(const std::filesystem::path& path);

// The process's signal handlers (interrupt.hpp). For the end-to-end tests, CUDNN_INSTALL_TEST_PAUSE_AT
// (spool, stage, swap, commit; undo: between the steps of a rollback, next-undo: before one)
// makes the first look at that checkpoint wait for a signal,
// after saying so on stderr: a test signals the install at a known point without timing it.
std::unique_ptr<Interrupts> catch_cli_interrupts();
// The library's open_session (session.hpp) with this process's signal handlers, caught before the
// lock is taken: from then on SIGINT, SIGTERM and SIGHUP (Ctrl-C, Ctrl-Break, the console closing)
// are only recorded, so that no signal ends the process half-way through a change (an install
// looks at them and rolls back; a rollback or recovery is finished first). Logs into the state
// directory and says what recovery did.
Result<Session> open_session(const std::filesystem::path& root, const Options& options);
// The toolkit a command works on (choose_toolkit with this machine's search), and how it was
// chosen told: a "toolkit ..." line when there is something to say (text), `toolkit_choice` (--json).
Result<Toolkit> choose_cli_toolkit(const Options& options, ToolkitPurpose purpose,
                                   std::optional<int> cuda_major = std::nullopt);
// What `toolkit_choice` holds (docs/schema/common.json): root, chosen_by, found_by, others.
nlohmann::json toolkit_choice_json(const Toolkit& toolkit);
// The toolkit of --cuda-root (or the one choose_toolkit takes) with its session open: what the commands
// that change an existing installation (--rollback, uninstall) start with.
struct ToolkitSession {
  Toolkit toolkit;
  Session session;
};
Result<ToolkitSession> open_toolkit_session(const Options& options);

int cmd_install(const Options& options);
// Processes holding files the plan replaces: warn (or refuse with --require-no-holders).
std::vector<WatchedFile> files_replaced(const Plan& plan, const std::filesystem::path& root);
Result<void> check_holders(const std::vector<WatchedFile>& files, const Options& options);
void report_still_running_old(const std::vector<WatchedFile>& files, const Options& options);

// The environment step (env_step.hpp) as the flags ask for it.
EnvStepOptions env_step_options(const Options& options);
// After a change to the loader configuration (ldconfig; a failure is a warning) or to PATH (a
// reminder that running programs keep the old one).
void after_env_change(const EnvChanged& changed, const Options& options);
// Whether the standard stream `fd` is a terminal (a console on Windows): terminal_*.cpp.
bool is_terminal(int fd);
// The one process runner of this run (the library's, no shell).
ProcessRunner& process_runner();
int cmd_rollback(const Options& options);
// `fetch VERSION`, `list`, and `cudnn-install VERSION` (resolve, download, then cmd_install).
int cmd_fetch(const Options& options);
int cmd_list(const Options& options);
int cmd_install_version(Options options);
int cmd_uninstall(const Options& options);
int cmd_doctor(const Options& options);
// Asks on a terminal unless --yes; refuses without a terminal. `doing`: "install", "roll back", ...
// A signal while it waits for the answer is an ErrorCode::Interrupted (Terminated, HungUp) error.
Result<void> confirm(const Options& options, const std::string& doing, Interrupts* interrupts = nullptr);

// --dry-run of a change of an installed toolkit (change.hpp): the preview printed and its
// directories outside the toolkit's real path named as warnings (the real run asks about them).
int report_change_preview(const Toolkit& toolkit, const ChangePreview& preview, const Options& options);
// Names every directory a change writes in (or removes from) that is outside the toolkit's real
// path (a symlink or junction: lib64 -> /elsewhere), as a warning. Such a change needs the user's
// yes at the prompt or --yes: without a terminal it is refused, saying why and how to go on.
Result<void> allow_writes_outside(const std::vector<OutsideDir>& outside, const Options& o, const std::string& doing);
// The hooks of a real change: the directories outside allowed as above, then (unless --yes) the
// preview shown and confirmed. `doing`: "roll back", "uninstall".
ChangeHooks change_hooks(const Session& session, const Toolkit& toolkit, const Options& options, const char* doing);
int cmd_status(const Options& options);
int cmd_verify(const Options& options);
// The hidden argument that makes this program the runtime probe's child: `cudnn-install __probe LIB`.
inline constexpr const char* kProbeArgument = "__probe";
// This program with kProbeArgument: what verify runs in a child, with the library appended.
std::vector<std::string> probe_command();
int cmd_probe(const std::filesystem::path& library);
int cmd_bench(const Options& options);
void add_bench_options(CLI::App& bench, BenchFlags& flags);
// The short benchmark after an install (GPU present, no --no-bench); returns the exit code.
int run_post_install_bench(const Toolkit& toolkit, const Options& options);
// Verifies `toolkit` (after an install: against the archive's version); returns the exit code.
int run_verify(const Toolkit& toolkit, const std::string& expected_version, const Options& options);

}  // namespace cudnn_install::cli
