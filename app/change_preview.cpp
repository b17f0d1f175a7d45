// What --rollback and uninstall show before they change anything (change.hpp): the change itself,
// run on a filesystem that writes nothing. --dry-run stops there; a real run asks about it.
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install::cli {
namespace {

std::string change_kind(PreviewChange::Kind kind) {
  switch (kind) {
    case PreviewChange::Kind::Create:
      return "create";
    case PreviewChange::Kind::Symlink:
      return "symlink";
    case PreviewChange::Kind::Move:
      return "move";
    case PreviewChange::Kind::Remove:
      return "remove";
    case PreviewChange::Kind::MakeDir:
      return "mkdir";
    case PreviewChange::Kind::Append:
      return "append";
  }
  return "";
}

nlohmann::json changes_json(const std::vector<PreviewChange>& changes) {
  auto list = nlohmann::json::array();
  for (const auto& c : changes) {
    nlohmann::json j{{"action", change_kind(c.kind)}, {"path", c.path.string()}, {"bytes", c.bytes}};
    if (c.kind == PreviewChange::Kind::Move) j["to"] = c.to.string();
    list.push_back(std::move(j));
  }
  return list;
}

// Each directory outside the toolkit's real path, as a warning (text and the JSON answer's warnings).
void warn_about_outside_dirs(const std::vector<OutsideDir>& outside, const Options& o) {
  for (const auto& d : outside) {
    std::string w = d.describe() + ": cuDNN's files there are changed";
    answer().warn(w);
    if (o.format == Format::Text && o.verbosity != Verbosity::Quiet) std::cout << "warning  " << w << "\n";
  }
}

void print_previewed(const Previewed& p, const std::filesystem::path& root, const Options& o) {
  if (o.verbosity == Verbosity::Quiet || o.format == Format::Json) return;
  for (const auto& line : p.headline) std::cout << line << "\n";
  for (const auto& line : describe_changes(p.changes, root)) std::cout << "  " << line << "\n";
  for (const auto& [key, value] : p.env_written)
    std::cout << "  PATH     " << to_string(key.first) << " " << key.second
              << (value ? " set back to its value before the install" : " removed") << "\n";
  for (const auto& line : p.after) std::cout << line << "\n";
}

}  // namespace

int report_would_fail(Error error, const Options& o) {
  error.message = "would fail: " + error.message;
  return report_error(error, o);
}

int report_change_preview(const Toolkit& toolkit, const ChangePreview& preview, const Options& o) {
  const Previewed& p = preview.preview;
  answer()["toolkit"] = toolkit.root.string();
  answer()["dry_run"] = true;
  answer()["changed"] = !p.changes.empty();  // what the real run would do
  answer()["changes"] = changes_json(p.changes);
  print_previewed(p, toolkit.root, o);  // nothing with --json or -q
  warn_about_outside_dirs(preview.outside, o);
  if (o.format == Format::Json) return 0;
  if (!preview.outside.empty() && o.verbosity != Verbosity::Quiet)
    std::cout << "the real run asks before changing files outside the toolkit (or needs --yes without a terminal)\n";
  std::cout << "dry run: nothing was written.\n";
  return 0;
}

Result<void> allow_writes_outside(const std::vector<OutsideDir>& outside, const Options& o, const std::string& doing) {
  warn_about_outside_dirs(outside, o);
  if (outside.empty() || o.confirm == Confirm::AssumeYes || is_terminal(0)) return {};
  std::string where;
  for (const auto& d : outside) where += (where.empty() ? "" : "; ") + d.describe();
  return fail(ErrorCode::Usage, "refused to " + doing + ": it changes files outside the toolkit's real path (" + where +
                                    "), and there is no terminal to confirm that. Check that cuDNN belongs there, then "
                                    "pass --yes to " +
                                    doing +
                                    " anyway; or pass --cuda-root with the toolkit the directory belongs to. "
                                    "Nothing was changed.");
}

ChangeHooks change_hooks(const Session& session, const Toolkit& toolkit, const Options& o, const char* doing) {
  ChangeHooks hooks;
  hooks.allow_outside = [&o, doing](const std::vector<OutsideDir>& outside) {
    return allow_writes_outside(outside, o, doing);
  };
  if (o.confirm == Confirm::AssumeYes) return hooks;
  hooks.approve = [&session, &toolkit, &o, doing](const Previewed& p) -> Result<void> {
    print_previewed(p, toolkit.root, o);
    return confirm(o, doing, session.interrupts.get());
  };
  return hooks;
}

}  // namespace cudnn_install::cli
