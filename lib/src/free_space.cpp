#include "free_space.hpp"

#include "base/util.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {

std::uint64_t on_disk(std::uint64_t bytes, const FreeSpace& space) {
  std::uint64_t block = space.block ? space.block : 4096;
  return (bytes + block - 1) / block * block;
}

void SpaceNeeded::add(const fs::path& path, std::uint64_t bytes) {
  fs::path dir = path.parent_path();
  std::optional<FreeSpace> space;
  for (; !dir.empty(); dir = dir.parent_path()) {  // a directory the install creates is not there yet
    if (auto st = fs_.stat(dir); st && *st) {
      space = fs_.free_space(dir);
      break;
    }
    if (dir == dir.parent_path()) break;
  }
  if (!space) return;  // unknown: the writes themselves report a full disk
  auto [it, fresh] = by_device_.try_emplace(space->device, OnOneFilesystem{*space, dir, 0});
  it->second.bytes += on_disk(bytes, it->second.space);
}

Result<void> SpaceNeeded::check() const {
  for (const auto& [device, need] : by_device_)
    if (need.bytes + kSpaceMarginBytes > need.space.available)
      return fail(ErrorCode::Io, not_enough_space(need.example, need.bytes, need.space.available),
                  need.example.string());
  return {};
}

std::string not_enough_space(const fs::path& where, std::uint64_t needed, std::uint64_t available) {
  return "not enough space: the install writes " + util::human_bytes(needed) + " on the filesystem of '" +
         where.string() + "' (and keeps " + util::human_bytes(kSpaceMarginBytes) + " free there), but only " +
         util::human_bytes(available) + " are free. Free some space there, then run again.";
}

}  // namespace cudnn_install
