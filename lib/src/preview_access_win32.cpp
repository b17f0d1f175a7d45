// may_write on Windows: ACLs and elevation make a prediction unreliable, so a dry run does not
// try; the real run reports access denied, and rolls back.
#include "cudnn_install/preview.hpp"

namespace cudnn_install {

bool may_write(const std::filesystem::path&) { return true; }

}  // namespace cudnn_install
