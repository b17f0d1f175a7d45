#include "cudnn_install/state_lock.hpp"

#include "cudnn_install/state_dir.hpp"
#include "state_lock_common.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

Result<fs::path> prepare_lock_file(const fs::path& root) {
  std::error_code ec;
  fs::create_directories(state_dir(root), ec);
  if (ec)
    return fail(ErrorCode::Io,
                "cannot create '" + state_dir(root).string() + "': " + ec.message() +
                    " (run with the rights to change the toolkit: root, or an administrator on Windows)",
                state_dir(root).string());
  return state_dir(root) / "lock";
}

std::unexpected<Error> lock_held(const fs::path& root, const fs::path& lock, std::optional<long> holder) {
  return fail(ErrorCode::Conflict,
              "another cudnn-install" + (holder ? " (PID " + std::to_string(*holder) + ")" : std::string()) +
                  " is working on " + root.string() + "; wait for it to finish and try again",
              lock.string());
}

}  // namespace cudnn_install
