#include <fmt/format.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>

#include "answer.hpp"
#include "cli.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/report.hpp"

namespace cudnn_install::cli {
namespace {

namespace fs = std::filesystem;

// With --json, the warnings also go into the answer: a script sees them without reading stderr.
class AnswerWarnings : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    answer().warn(std::string(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}
};

// Each message is written to the file at once (no buffer to lose); after a failed write (a full
// disk) nothing more is tried: the logger cannot report its own failure through itself.
class AppendFileSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit AppendFileSink(std::unique_ptr<OutputFile> file) : file_(std::move(file)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (!file_) return;
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    if (!file_->write(std::span<const char>(line.data(), line.size()))) file_.reset();
  }
  void flush_() override {}

 private:
  std::unique_ptr<OutputFile> file_;
};

}  // namespace

Result<spdlog::sink_ptr> append_only_log(const fs::path& path) {
  auto file = open_for_append(path);
  if (!file) return std::unexpected(file.error());
  return std::make_shared<AppendFileSink>(std::move(*file));
}

ProcessRunner& process_runner() {
  static const std::unique_ptr<ProcessRunner> runner = make_process_runner();
  return *runner;
}

void after_env_change(const EnvChanged& changed, const Options& o) {
  if (auto r = refresh_after_env_change(changed, process_runner()); !r) report_warning(r.error());
  if (changed.path && o.verbosity != Verbosity::Quiet && o.format == Format::Text)
    std::cout
        << "PATH changed: programs started from now on see it; running ones (and open terminals) keep the old PATH.\n";
}

int report_error(const Error& error, const Options& options) {
  spdlog::debug("error {}: {}", to_string(error.code), error.message);
  if (options.format == Format::Json)
    answer().fail(error);  // main prints the answer, the error with what the command had found
  else
    std::cerr << "cudnn-install: error: " << error.message << "\n";
  return static_cast<int>(exit_code_for(error.code));
}

void report_warning(const Error& error) { spdlog::warn("{}", error.message); }

void setup_logging(const Options& options) {
  auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  console->set_level(options.verbosity == Verbosity::Verbose ? spdlog::level::debug
                     : options.verbosity == Verbosity::Quiet ? spdlog::level::err
                                                             : spdlog::level::warn);
  console->set_pattern("%^%l%$: %v");
  std::vector<spdlog::sink_ptr> sinks{console};
  std::optional<std::string> log_problem;  // warned once the logger is set, so that --json has it too
  std::error_code ec;
  fs::path log_folder = options.log_file ? options.log_file->parent_path() : fs::path();
  if (options.log_file && !log_folder.empty() && !fs::is_directory(log_folder, ec)) {
    // open_for_append creates no folder (spdlog's file sink did: as root, a typo left directories
    // anywhere); this names the missing one, where the open's error would name only the file.
    log_problem = "no log is written: the folder " + log_folder.string() +
                  " of --log does not exist (create it, or give another path)";
  } else if (options.log_file) {
    if (auto sink = append_only_log(*options.log_file)) {
      sinks.push_back(*sink);
      sinks.back()->set_level(spdlog::level::debug);
    } else {
      log_problem = "no log is written: " + sink.error().message;
    }
  }
  if (options.format == Format::Json) {
    sinks.push_back(std::make_shared<AnswerWarnings>());
    sinks.back()->set_level(spdlog::level::warn);
  }
  auto logger = std::make_shared<spdlog::logger>("cudnn-install", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::debug);
  spdlog::set_default_logger(logger);
  if (log_problem) spdlog::warn("{}", *log_problem);
}

}  // namespace cudnn_install::cli
