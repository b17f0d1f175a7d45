// Debris that a killed run (kill -9, a power cut) leaves in the state directory after its
// transaction ended or before it began: the spool, and the temporaries of the state files, which
// base/state_file.cpp names "<file>.tmp-<PID>". Recovery removes only names the tool makes, exactly,
// and a temporary only when its process is no longer running; it says what it removed.
#include "base/state_file.hpp"
#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive.hpp"
#include "cudnn_install/txn.hpp"
#include "txn_validate.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

// The state files written through a temporary (archive_memo.cpp, file_stamps.cpp).
constexpr const char* kFilesWithTemporaries[] = {"stamps.json", "archives.json"};

// The PID of a state file's temporary that no running process owns; nullopt for any other name.
std::optional<long> dead_temporary(const std::string& name) {
  for (const char* file : kFilesWithTemporaries)
    if (auto pid = state_temp_pid(name, file))
      return *pid != util::process_id() && !util::process_running(*pid) ? pid : std::nullopt;
  return std::nullopt;
}

std::string in_state_dir(const std::string& name) { return std::string(kStateDirName) + "/" + name; }

}  // namespace

Result<std::vector<std::string>> remove_state_debris(FileSystem& fs, const fs::path& root) {
  std::vector<std::string> cleaned;
  TRY_ASSIGN(bool spool, state_subdir(fs, spool_dir(root)));  // a symlink there is refused, never followed
  if (spool) {
    TRY(remove_spool(fs, spool_dir(root)));
    cleaned.push_back(in_state_dir("spool/") + " (copies from an archive of an install that did not start)");
  }
  TRY_ASSIGN(bool dir, state_subdir(fs, state_dir(root)));
  if (!dir) return cleaned;
  TRY_ASSIGN(auto names, fs.list_dir(state_dir(root)));
  for (const auto& name : names) {
    auto pid = dead_temporary(name);
    if (!pid) continue;
    TRY_ASSIGN(bool file, state_file(fs, state_dir(root) / name));  // a symlink or directory: refused
    if (!file) continue;
    TRY(fs.remove(state_dir(root) / name));
    cleaned.push_back(in_state_dir(name) + " (left by process " + std::to_string(*pid) + ", no longer running)");
  }
  return cleaned;
}

bool has_state_debris(const fs::path& root) {
  std::error_code ec;
  if (fs::symlink_status(spool_dir(root), ec).type() != fs::file_type::not_found && !ec) return true;
  for (fs::directory_iterator it(state_dir(root), ec), end; !ec && it != end; it.increment(ec))
    if (dead_temporary(it->path().filename().string())) return true;
  return false;
}

}  // namespace cudnn_install
