// What every command that may write does first: take the lock, log into the state directory,
// and finish whatever an interrupted earlier run left behind.
#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli.hpp"
#include "cudnn_install/toolkit.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {
namespace {

void log_into_state_dir(const std::filesystem::path& root) {
  auto sink = append_only_log(state_dir(root) / "cudnn-install.log");
  if (!sink) {
    spdlog::warn("no log in the state directory: {}", sink.error().message);
    return;
  }
  (*sink)->set_level(spdlog::level::info);
  spdlog::default_logger()->sinks().push_back(*sink);
}

void say_recovered(const Recovery& r, const Options& o) {
  for (const auto& c : r.cleaned) {
    spdlog::info("recovery: removed {}", c);
    if (o.verbosity != Verbosity::Quiet) std::cerr << "cudnn-install: recovery: removed " << c << "\n";
  }
  if (r.what == Recovery::What::Nothing || o.verbosity == Verbosity::Quiet) return;
  const char* what = r.what == Recovery::What::RolledBack  ? "rolled back the interrupted transaction"
                     : r.what == Recovery::What::Completed ? "completed the committed transaction"
                                                           : "finished the interrupted rollback of";
  std::cerr << "cudnn-install: recovery: " << what << " " << r.id << "\n";
  spdlog::info("recovery: {} {}", what, r.id);
}

// The end-to-end tests' hook (cli.hpp): waits, at the first look at one checkpoint, for the signal
// the test sends once it has read the line on stderr.
class PausingInterrupts final : public Interrupts {
 public:
  PausingInterrupts(std::unique_ptr<Interrupts> real, Checkpoint pause_at)
      : real_(std::move(real)), pause_at_(pause_at) {}
  Interruption raised(Checkpoint at) override {
    if (at == pause_at_ && !paused_.exchange(true)) {
      std::cerr << "cudnn-install: test hook: paused " << describe(at) << ", waiting for a signal\n" << std::flush;
      while (real_->raised(at) == Interruption::None) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return real_->raised(at);
  }

 private:
  std::unique_ptr<Interrupts> real_;
  Checkpoint pause_at_;
  std::atomic<bool> paused_{false};
};

std::optional<Checkpoint> test_pause_point() {
  const char* at = std::getenv("CUDNN_INSTALL_TEST_PAUSE_AT");
  if (!at) return std::nullopt;
  const std::pair<const char*, Checkpoint> points[] = {
      {"spool", Checkpoint::Spool},   {"stage", Checkpoint::Stage}, {"swap", Checkpoint::Swap},
      {"commit", Checkpoint::Commit}, {"undo", Checkpoint::Undo},   {"next-undo", Checkpoint::NextUndo}};
  for (const auto& [name, point] : points)
    if (std::string(at) == name) return point;
  return std::nullopt;
}

}  // namespace

std::unique_ptr<Interrupts> catch_cli_interrupts() {
  auto real = catch_interrupts();
  auto pause_at = test_pause_point();
  if (!pause_at) return real;
  return std::make_unique<PausingInterrupts>(std::move(real), *pause_at);
}

Result<Session> open_session(const std::filesystem::path& root, const Options& o) {
  auto session = cudnn_install::open_session(root, catch_cli_interrupts(), [&root](const StateLock& lock) {
    log_into_state_dir(root);
    spdlog::info("cudnn-install {} on {}", CUDNN_INSTALL_VERSION, root.string());
    if (auto stale = lock.stale_holder())
      spdlog::warn("took over the lock left by PID {}, which is no longer running", *stale);
  });
  if (session) say_recovered(session->recovered, o);
  return session;
}

nlohmann::json toolkit_choice_json(const Toolkit& tk) {
  nlohmann::json others = nlohmann::json::array();
  for (const auto& other : tk.choice.others)
    others.push_back({{"root", other.root.string()}, {"cuda_version", other.version}, {"found_by", other.found_by}});
  return {{"root", tk.root.string()},
          {"chosen_by", to_string(tk.choice)},
          {"found_by", found_by_text(tk)},
          {"others", others},
          {"notes", tk.choice.notes}};
}

namespace {

void tell_toolkit_choice(const Toolkit& tk, const Options& o) {
  for (const auto& note : tk.choice.notes) spdlog::warn("{}", note);
  if (o.format == Format::Json) {
    if (answer()["toolkit_choice"].is_null()) answer()["toolkit_choice"] = toolkit_choice_json(tk);
    return;
  }
  std::string why = choice_text(tk);
  if (!why.empty() && o.verbosity != Verbosity::Quiet)
    std::cout << "toolkit  " << tk.root.string() << "  (" << why << ")\n";
}

}  // namespace

Result<Toolkit> choose_cli_toolkit(const Options& o, ToolkitPurpose purpose, std::optional<int> cuda_major) {
  auto toolkit = choose_toolkit(system_toolkit_search(o.cuda_root, process_runner()), purpose, cuda_major);
  if (toolkit) tell_toolkit_choice(*toolkit, o);
  return toolkit;
}

Result<ToolkitSession> open_toolkit_session(const Options& o) {
  auto toolkit = choose_cli_toolkit(o, ToolkitPurpose::Inspect);
  if (!toolkit) return std::unexpected(toolkit.error());
  auto session = open_session(toolkit->root, o);
  if (!session) return std::unexpected(session.error());
  return ToolkitSession{std::move(*toolkit), std::move(*session)};
}

}  // namespace cudnn_install::cli
