// The one answer of an invocation. With --json the commands put what they found and did into it,
// and main prints it once, at the end, as one object: schema, kind, exit_code and the kind's
// members (docs/json-schema.md). Text is printed by the commands as they go; the answer then only
// counts. Building one object, instead of printing pieces as they happen, is what makes the JSON
// one answer whatever path the command took (a refusal after the plan, a failed verification).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/error.hpp"

namespace cudnn_install::cli {

class Answer {
 public:
  // The command this invocation runs, with every member of its kind at its default (null, [] or
  // false), so that each kind always has the same keys.
  void begin(const std::string& kind);
  const std::string& kind() const { return kind_; }
  // This invocation is a preview (--dry-run): it writes nothing, whatever ends it, so an error's
  // answer says dry_run true too. Kinds without the member keep none.
  void mark_dry_run();
  nlohmann::json& operator[](const char* key) { return members_[key]; }
  void merge(const nlohmann::json& members) { members_.update(members); }
  // The command ended with this error: the answer is of kind "error"; what the command had found
  // (the plan, say) stays in it.
  void fail(const Error& error);
  const std::optional<Error>& error() const { return error_; }
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  nlohmann::json to_json(int exit_code) const;

 private:
  std::string kind_;
  nlohmann::json members_ = nlohmann::json::object();
  std::optional<Error> error_;
  std::vector<std::string> warnings_;
};

// This invocation's answer.
Answer& answer();

// A nested report of the library (verify, bench) without its own schema and kind.
nlohmann::json nested(nlohmann::json report);

}  // namespace cudnn_install::cli
