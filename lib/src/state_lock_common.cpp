#include "cudnn_install/state_lock.hpp"

#include "cudnn_install/state_dir.hpp"
#include "state_lock_common.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

Result<fs::path> prepare_lock_file(const fs::path& root) {
  if (auto r = open_state_dir(root); !r) return std::unexpected(r.error());
  return state_dir(root) / "lock";
}

std::unexpected<Error> untrusted_state(const fs::path& path, const std::string& why) {
  return fail(ErrorCode::Conflict,
              "'" + path.string() + "' " + why +
                  ", so cudnn-install does not use it: whoever could change it could lead the tool's writes "
                  "outside the toolkit. Nothing was changed. Look at it, then remove it (or fix its owner and "
                  "mode) and run again.",
              path.string());
}

std::unexpected<Error> lock_held(const fs::path& root, const fs::path& lock, std::optional<long> holder) {
  return fail(ErrorCode::Conflict,
              "another cudnn-install" + (holder ? " (PID " + std::to_string(*holder) + ")" : std::string()) +
                  " is working on " + root.string() + "; wait for it to finish and try again",
              lock.string());
}

}  // namespace cudnn_install
