// The registry half of a transaction. The edit is the last change before "commit"; undo reads
// the value now and puts the old bytes back only when it is still what the edit wrote, so it is
// idempotent like the file steps, and a PATH someone changed since is not overwritten.
#include <spdlog/spdlog.h>

#include "base/try.hpp"
#include "txn_steps.hpp"

namespace cudnn_install {
namespace {

std::unexpected<Error> no_store(const EnvEdit& edit) {
  return fail(ErrorCode::Io, std::string("this transaction changes ") + edit.name + " in " + to_string(edit.scope) +
                                 ", which this build of cudnn-install cannot reach (run the Windows build)");
}

}  // namespace

Result<void> apply_env_edit(EnvStore* env, const EnvEdit& edit) {
  if (!env) return no_store(edit);
  TRY(env->write(edit.scope, edit.name, edit.after));
  env->broadcast_change();
  return {};
}

Result<void> undo_env_edit(EnvStore* env, const BeginRecord& begin) {
  if (!begin.env_edit) return {};
  const EnvEdit& edit = *begin.env_edit;
  if (!env) return no_store(edit);
  TRY_ASSIGN(auto now, env->read(edit.scope, edit.name));
  if (now == edit.before) return {};  // never written, or already restored
  if (now != edit.after) {
    spdlog::warn(
        "{} in {} was changed by something else after transaction {}; it is left as it is now{}", edit.name,
        to_string(edit.scope), begin.id,
        begin.env_entry.empty() ? "" : " (remove " + begin.env_entry + " from it yourself if it is not wanted)");
    return {};
  }
  auto r = edit.before ? env->write(edit.scope, edit.name, *edit.before) : env->erase(edit.scope, edit.name);
  if (r) env->broadcast_change();
  return r;
}

}  // namespace cudnn_install
