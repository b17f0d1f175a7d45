// Stage 4: which processes hold a file the install would replace. On Linux: /proc/PID/maps
// (mapped libraries, also " (deleted)" ones already replaced) and /proc/PID/fd (open files), as
// needrestart and lsof do. A process that cannot be inspected is "unknown", never "free".
#pragma once
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

struct FileId {
  unsigned long long device = 0;  // st_dev
  unsigned long long inode = 0;
  bool operator==(const FileId&) const = default;
};

struct Holder {
  long pid = 0;
  std::string program;  // executable path, or the command name
  std::string user;
  std::string file;  // the target it holds
  enum class How { Mapped, MappedDeleted, OpenFile };
  How how = How::Mapped;
};

struct HolderScan {
  std::vector<Holder> holders;
  std::vector<long> unknown;  // PIDs whose maps or fds could not be read
  std::string unavailable;    // why holders cannot be found at all here (e.g. Restart Manager under Wine)
  bool as_root = false;       // scanned as root: what could not be inspected is not for lack of being root
};

struct WatchedFile {
  std::string path;  // as the user knows it
  FileId id;
};

class ProcessFinder {
 public:
  virtual ~ProcessFinder() = default;
  virtual Result<HolderScan> find_holders(const std::vector<WatchedFile>& files) = 0;
};

std::unique_ptr<ProcessFinder> make_process_finder();
// The identity of a file now, or nullopt when it is not there.
std::optional<FileId> file_id(const std::filesystem::path& path);

// One line of /proc/PID/maps: the device and inode it maps and its path (pure; unit-tested).
struct MapsLine {
  FileId id;
  std::string path;
  bool deleted = false;
};
std::optional<MapsLine> parse_maps_line(const std::string& line);

std::string describe_holders(const HolderScan& scan);

// What holders mean for an install. Windows refuses (a loaded DLL cannot be overwritten) unless
// --replace-in-use moves the files aside; Linux replaces by rename, which running programs
// survive, so it warns unless --require-no-holders.
enum class HolderRule { Refuse, Warn };
// The refusal (Conflict, naming each PID and program, ending with `how_to_proceed`), or the note
// to show before going on (empty when there is nothing to say).
Result<std::string> judge_holders(const HolderScan& scan, HolderRule rule, const std::string& how_to_proceed);
// Asks the finder about the files and judges its answer; a finder that fails counts as unavailable.
Result<std::string> check_holders(ProcessFinder& finder, const std::vector<WatchedFile>& files, HolderRule rule,
                                  const std::string& how_to_proceed);

}  // namespace cudnn_install
