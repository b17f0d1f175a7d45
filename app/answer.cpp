#include "answer.hpp"

#include "cudnn_install/report.hpp"

namespace cudnn_install::cli {
namespace {

// The members a kind always has, before the command fills them (docs/schema/<kind>.json). Kinds
// whose members come whole from one library report (verify, doctor, bench, ...) start empty.
nlohmann::json defaults_of(const std::string& kind) {
  if (kind == "install")
    return {{"dry_run", false},       {"changed", false},        {"result", nullptr}, {"release", nullptr},
            {"integrity", nullptr},   {"toolkit", nullptr},      {"plan", nullptr},   {"environment", nullptr},
            {"transaction", nullptr}, {"verification", nullptr}, {"bench", nullptr}};
  if (kind == "rollback")
    return {{"changed", false},
            {"toolkit", nullptr},
            {"transaction", nullptr},
            {"dry_run", false},
            {"changes", nlohmann::json::array()}};
  if (kind == "uninstall")
    return {{"changed", false},
            {"toolkit", nullptr},
            {"dry_run", false},
            {"changes", nlohmann::json::array()},
            {"undone", nlohmann::json::array()},
            {"removed", nullptr},
            {"left_in_place", nlohmann::json::array()}};
  return nlohmann::json::object();
}

// What an error keeps of its command's members: what had been found (the plan, the release), not
// the defaults, nor an outcome the error overturned.
nlohmann::json found_before(const nlohmann::json& members) {
  nlohmann::json kept = nlohmann::json::object();
  for (const auto& [key, value] : members.items())
    if (!value.is_null() && key != "changed" && key != "result") kept[key] = value;
  return kept;
}

}  // namespace

void Answer::begin(const std::string& kind) {
  kind_ = kind;
  members_ = defaults_of(kind);
}

void Answer::mark_dry_run() {
  if (members_.contains("dry_run")) members_["dry_run"] = true;
}

void Answer::fail(const Error& error) {
  if (!error_) error_ = error;  // the first error ended the command; later ones only follow from it
}

nlohmann::json Answer::to_json(int exit_code) const {
  nlohmann::json j = error_ ? found_before(members_) : members_;
  if (error_) {
    j["command"] = kind_.empty() ? nlohmann::json() : nlohmann::json(kind_);
    j["code"] = to_string(error_->code);
    j["message"] = error_->message;
    j["subject"] = error_->subject;
  }
  j["schema"] = kJsonSchema;
  j["kind"] = error_ ? "error" : kind_;
  j["exit_code"] = exit_code;
  j["warnings"] = warnings_;
  return j;
}

Answer& answer() {
  static Answer the_answer;
  return the_answer;
}

nlohmann::json nested(nlohmann::json report) {
  report.erase("schema");
  report.erase("kind");
  return report;
}

}  // namespace cudnn_install::cli
