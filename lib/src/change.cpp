// The preview and the approval of a change of an installed toolkit (change.hpp).
#include "cudnn_install/change.hpp"

#include "base/try.hpp"
#include "cudnn_install/txn.hpp"

namespace cudnn_install {

Previewed preview_change(FileSystem& real, EnvStore* env, const ChangeOp& op, PreviewStart start,
                         const std::filesystem::path& root) {
  PreviewFileSystem fs(real);
  PreviewEnvStore preview_env(env);
  EnvStore* e = env ? &preview_env : nullptr;
  Previewed p;
  if (start == PreviewStart::RecoverFirst) {
    auto recovered = recover(fs, root, e);
    if (!recovered) {
      p.failure = recovered.error();
      return p;
    }
    if (recovered->what != Recovery::What::Nothing)
      p.headline.push_back("first: finish the interrupted transaction " + recovered->id +
                           " (as every real run does before anything else)");
  }
  auto done = op(fs, e);
  if (done) {
    p.headline.insert(p.headline.end(), done->headline.begin(), done->headline.end());
    p.after = done->after;
  } else {
    p.failure = done.error();
  }
  p.changes = fs.changes();
  for (const auto& [key, value] : preview_env.written()) p.env_written[key] = value.has_value();
  return p;
}

Result<ChangePreview> dry_run_change(FileSystem& real, EnvStore* env, const std::filesystem::path& root,
                                     const ChangeOp& op, Result<std::vector<OutsideDir>> outside) {
  if (!outside) return std::unexpected(outside.error());
  TRY(check_state_lock_possible(real, root));
  Previewed p = preview_change(real, env, op, PreviewStart::RecoverFirst, root);
  if (p.failure) return std::unexpected(*p.failure);
  return ChangePreview{std::move(p), std::move(*outside)};
}

Result<void> approve_change(Session& session, const std::filesystem::path& root, const ChangeOp& op,
                            const std::vector<OutsideDir>& outside, const ChangeHooks& hooks) {
  if (hooks.allow_outside) TRY(hooks.allow_outside(outside));
  if (!hooks.approve) return {};
  Previewed p = preview_change(*session.fs, session.env.get(), op, PreviewStart::AsIs, root);
  if (p.failure) return std::unexpected(*p.failure);
  return hooks.approve(p);
}

}  // namespace cudnn_install
