// /proc scanning: maps for mapped libraries, fd for open files.
#include <dirent.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <fstream>

#include "cudnn_install/locks.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

std::string user_of(const fs::path& proc_dir) {
  struct stat st;
  if (::stat(proc_dir.c_str(), &st) != 0) return "?";
  if (passwd* pw = ::getpwuid(st.st_uid)) return pw->pw_name;
  return std::to_string(st.st_uid);
}

std::string program_of(const fs::path& proc_dir) {
  std::error_code ec;
  auto exe = fs::read_symlink(proc_dir / "exe", ec);
  if (!ec) return exe.string();
  std::ifstream comm(proc_dir / "comm");
  std::string name;
  std::getline(comm, name);
  return name.empty() ? "?" : "[" + name + "]";
}

const WatchedFile* by_id(const std::vector<WatchedFile>& files, const FileId& id) {
  for (const auto& f : files)
    if (f.id == id) return &f;
  return nullptr;
}

// A mapping of a file that was deleted or replaced since: the kernel still shows its old path.
const WatchedFile* by_old_path(const std::vector<WatchedFile>& files, const std::string& path) {
  for (const auto& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

// Returns false when the process's maps or fds could not be read.
bool scan_process(long pid, const std::vector<WatchedFile>& files, std::vector<Holder>& out) {
  fs::path dir = fs::path("/proc") / std::to_string(pid);
  std::ifstream maps(dir / "maps");
  if (!maps) return false;
  std::vector<const WatchedFile*> seen;
  auto add = [&](const WatchedFile* f, Holder::How how) {
    for (const auto* s : seen)
      if (s == f) return;
    seen.push_back(f);
    out.push_back({pid, program_of(dir), user_of(dir), f->path, how});
  };
  for (std::string line; std::getline(maps, line);) {
    auto m = parse_maps_line(line);
    if (!m) continue;
    if (const auto* f = m->deleted ? by_old_path(files, m->path) : by_id(files, m->id))
      add(f, m->deleted ? Holder::How::MappedDeleted : Holder::How::Mapped);
  }
  DIR* fds = ::opendir((dir / "fd").c_str());
  if (!fds) return false;
  while (dirent* e = ::readdir(fds)) {
    if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
    struct stat st;
    if (::stat((dir / "fd" / e->d_name).c_str(), &st) != 0) continue;
    FileId id{static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
    if (const auto* f = by_id(files, id)) add(f, Holder::How::OpenFile);
  }
  ::closedir(fds);
  return true;
}

class ProcFinder final : public ProcessFinder {
 public:
  Result<HolderScan> find_holders(const std::vector<WatchedFile>& files) override {
    HolderScan scan;
    scan.as_root = ::geteuid() == 0;
    if (files.empty()) return scan;
    DIR* proc = ::opendir("/proc");
    if (!proc) return fail(ErrorCode::Io, "cannot read /proc: processes holding cuDNN files cannot be found");
    long self = static_cast<long>(::getpid());
    while (dirent* e = ::readdir(proc)) {
      if (!std::isdigit(static_cast<unsigned char>(e->d_name[0]))) continue;
      long pid = std::strtol(e->d_name, nullptr, 10);
      if (pid == self) continue;
      if (!scan_process(pid, files, scan.holders) && fs::exists(fs::path("/proc") / e->d_name))
        scan.unknown.push_back(pid);  // gone meanwhile is fine; unreadable is unknown
    }
    ::closedir(proc);
    return scan;
  }
};

}  // namespace

std::unique_ptr<ProcessFinder> make_process_finder() { return std::make_unique<ProcFinder>(); }

std::optional<FileId> file_id(const fs::path& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileId{static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino)};
}

}  // namespace cudnn_install
