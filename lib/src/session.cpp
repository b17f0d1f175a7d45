#include "cudnn_install/session.hpp"

#include "base/try.hpp"
#include "cudnn_install/env_step.hpp"

namespace cudnn_install {

Result<Session> open_session(const std::filesystem::path& root, std::unique_ptr<Interrupts> interrupts,
                             const std::function<void(const StateLock&)>& locked) {
  TRY_ASSIGN(auto lock, acquire_state_lock(root));
  if (locked) locked(*lock);
  Session session{std::move(lock), make_real_filesystem(), open_env_store(), {}, std::move(interrupts)};
  TRY_ASSIGN(session.recovered, recover(*session.fs, root, session.env.get()));
  return session;
}

}  // namespace cudnn_install
