#include "cudnn_install/report.hpp"

#include <fmt/format.h>

#include <map>

#include "base/util.hpp"

namespace cudnn_install {
namespace {

std::string archive_line(const ArchiveInfo& archive) {
  std::string what = archive.name ? archive.name->file_name : archive.path.filename().string();
  if (!archive.identified.empty())  // a renamed file: its own name, then what it was recognised as
    what = archive.path.filename().string() + "\n         " + archive.identified;
  std::string cuda = archive.name ? "CUDA " + archive.name->cuda.text : "CUDA unknown";
  return fmt::format("archive  {}\n         cuDNN {} for {}, {} {}, {} ({} says {})\n", what,
                     archive.name ? archive.name->version.to_string() : archive.header_version.to_string(), cuda,
                     to_string(archive.os), to_string(archive.container), util::human_bytes(archive.archive_bytes),
                     archive.version_header, archive.header_version.to_string());
}

std::string toolkit_line(const Toolkit& tk) {
  return fmt::format("toolkit  {}\n         CUDA {} (version from {}; found by {}), {} layout, libraries in {}\n",
                     tk.root.string(), tk.version.to_string(), tk.version_source, found_by_text(tk), to_string(tk.os),
                     (tk.os == TargetOs::Windows ? tk.bin_dir : tk.lib_dir).generic_string());
}

std::string step_line(const Step& s) {
  std::string size = s.type == EntryType::Symlink ? "-> " + s.link_target : util::human_bytes(s.size);
  std::string line = fmt::format("  {:<15}{:<56} {}", to_string(s.action), s.target, size);
  if (!s.reason.empty() && s.action != Action::Overwrite) line += "\n                 " + s.reason;
  return line + "\n";
}

std::string summary(const Plan& plan) {
  return fmt::format(
      "summary  {} to create, {} to overwrite, {} identical (skipped), {} stale to remove, {} other kept; "
      "{} to write{}\n",
      plan.count(Action::Create), plan.count(Action::Overwrite), plan.count(Action::SkipIdentical),
      plan.count(Action::Remove), plan.count(Action::KeepOther), util::human_bytes(plan.bytes_to_write),
      plan.dirs_to_create.empty() ? "" : fmt::format(", {} directories to create", plan.dirs_to_create.size()));
}

}  // namespace

std::string render_plan_text(const Plan& plan, const ArchiveInfo& archive, const Toolkit& toolkit) {
  std::string out = archive_line(archive) + toolkit_line(toolkit) + "\n";
  std::map<std::string, std::vector<const Step*>> by_dir;
  for (const auto& s : plan.steps) by_dir[s.target.substr(0, s.target.rfind('/') + 1)].push_back(&s);
  for (const auto& dir : plan.dirs_to_create) out += fmt::format("  {:<15}{}/\n", "mkdir", dir);
  for (const auto& [dir, steps] : by_dir) {
    out += fmt::format("{} ({} files)\n", dir.empty() ? "./" : dir, steps.size());
    for (const Step* s : steps) out += step_line(*s);
  }
  for (const auto& note : plan.notes) out += "  not installed  " + note + "\n";
  return out + "\n" + summary(plan);
}

nlohmann::json plan_to_json(const Plan& plan, const ArchiveInfo& archive, const Toolkit& toolkit) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : plan.steps) {
    nlohmann::json j{{"action", to_string(s.action)},
                     {"target", s.target},
                     {"role", to_string(s.role)},
                     {"type", s.type == EntryType::Symlink ? "symlink" : "file"},
                     {"size", s.size}};
    if (!s.entry.empty()) j["entry"] = s.entry;
    if (!s.link_target.empty()) j["link_target"] = s.link_target;
    if (!s.reason.empty()) j["reason"] = s.reason;
    steps.push_back(std::move(j));
  }
  nlohmann::json a{{"file", plan.archive_name},
                   {"os", to_string(archive.os)},
                   {"container", to_string(archive.container)},
                   {"cudnn_version", plan.cudnn_version},
                   {"header_version", archive.header_version.to_string()},
                   {"header_version_number", archive.header_version.number()},
                   {"version_header", archive.version_header}};
  if (archive.name) a["cuda"] = archive.name->cuda.text;
  if (!archive.identified.empty()) {
    a["given_file"] = archive.path.filename().string();
    a["identified"] = archive.identified;
  }
  return {{"schema", kJsonSchema},
          {"kind", "plan"},
          {"archive", a},
          {"toolkit",
           {{"root", toolkit.root.string()},
            {"cuda_version", toolkit.version.to_string()},
            {"version_source", toolkit.version_source},
            {"found_by", toolkit.found_by},
            {"os", to_string(toolkit.os)}}},
          {"dirs_to_create", plan.dirs_to_create},
          {"steps", steps},
          {"not_installed", plan.notes},
          {"totals",
           {{"create", plan.count(Action::Create)},
            {"overwrite", plan.count(Action::Overwrite)},
            {"skip_identical", plan.count(Action::SkipIdentical)},
            {"remove", plan.count(Action::Remove)},
            {"keep_other", plan.count(Action::KeepOther)},
            {"bytes_to_write", plan.bytes_to_write}}}};
}

nlohmann::json error_to_json(const Error& error) {
  return {{"schema", kJsonSchema},         {"kind", "error"},
          {"code", to_string(error.code)}, {"exit_code", static_cast<int>(exit_code_for(error.code))},
          {"message", error.message},      {"subject", error.subject}};
}

}  // namespace cudnn_install
