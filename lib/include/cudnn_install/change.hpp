// A change of an installed toolkit (--rollback, uninstall) written once, as a function of the
// filesystem and PATH store it runs on, so that the same code runs for real and on a preview
// (preview.hpp). The operations that use it (rollback.hpp, uninstall.hpp) all go the same way:
//
//   dry run:    preview_change on the real tree from a clean start (state lock, recovery, the
//               change): what the real run would do, or where it would stop; writes nothing.
//   real run:   the session open (session.hpp), then approve_change: the directories outside the
//               toolkit's real path and the preview put to the caller's hooks (the CLI's prompt),
//               then the change itself.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cudnn_install/env.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/preview.hpp"
#include "cudnn_install/session.hpp"
#include "cudnn_install/toolkit.hpp"

namespace cudnn_install {

// What a change says of itself, for people.
struct ChangeSummary {
  std::vector<std::string> headline;  // what is undone, before the list of changes
  std::vector<std::string> after;     // what follows it (ldconfig, files left in place)
};
using ChangeOp = std::function<Result<ChangeSummary>(FileSystem&, EnvStore*)>;

// What the change would do, or where it would stop (`failure`).
struct Previewed {
  std::vector<std::string> headline, after;
  std::vector<PreviewChange> changes;
  std::map<std::pair<EnvScope, std::string>, bool> env_written;  // PATH values set (true) or erased
  std::optional<Error> failure;
};

// A dry run starts where a real run starts (RecoverFirst: an interrupted transaction is finished
// first); a real run's own preview, made once its session has recovered, starts from the tree as is.
enum class PreviewStart { AsIs, RecoverFirst };
Previewed preview_change(FileSystem& real, EnvStore* env, const ChangeOp& op, PreviewStart start,
                         const std::filesystem::path& root);

// --dry-run of a change: the state lock (which the real run must be able to take), recovery and
// the change, all on a preview. `outside`: the directories outside the toolkit's real path it changes.
struct ChangePreview {
  Previewed preview;
  std::vector<OutsideDir> outside;
};
// The error is where the real run would stop before it changed anything.
Result<ChangePreview> dry_run_change(FileSystem& real, EnvStore* env, const std::filesystem::path& root,
                                     const ChangeOp& op, Result<std::vector<OutsideDir>> outside);

// What a real change asks of its caller first, as install's InstallHooks do; an error refuses it.
struct ChangeHooks {
  // The directories outside the toolkit's real path it changes (may be none): named, and allowed
  // only at the prompt or with --yes, as an install's are.
  std::function<Result<void>(const std::vector<OutsideDir>&)> allow_outside;
  // The change previewed, to show and ask about; empty: not previewed (--yes).
  std::function<Result<void>(const Previewed&)> approve;
};
// The hooks, in order; nothing is written.
Result<void> approve_change(Session& session, const std::filesystem::path& root, const ChangeOp& op,
                            const std::vector<OutsideDir>& outside, const ChangeHooks& hooks);

}  // namespace cudnn_install
