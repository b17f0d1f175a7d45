// The write-ahead journal: one record per line, each "<crc32 hex> <json>\n" and fsynced.
// A crash can tear only the last record: one whose CRC does not match, or that has no newline,
// with nothing after it, is ignored, exactly as if the crash had come just before it was written.
// Anything else that is not a whole, valid record in its place is damage (JournalState::damage):
// a broken record with more after it, or an intact one that the tool never writes (a "begin"
// without its fields, records out of order). Damage is reported, never guessed around.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudnn_install/entry_type.hpp"
#include "cudnn_install/env.hpp"

namespace cudnn_install {

struct JournalStep {
  enum class Kind { Place, Remove };
  Kind kind = Kind::Place;
  std::string target;  // root-relative path being replaced, created or removed
  std::string temp;    // Place: root-relative temporary file beside the target
  std::string backup;  // root-relative backup of the old file; empty when there was none
  bool had_old() const { return !backup.empty(); }
};

// What a committed transaction left at one target, recorded in its "commit" record: undo checks
// it before deleting or overwriting that target, so that a file another program (or a person)
// changed or put there since is never lost to a --rollback.
struct PlacedFile {
  EntryType type = EntryType::File;
  std::uint64_t size = 0;   // File
  std::uint32_t crc32 = 0;  // File
  std::string link_target;  // Symlink
  bool operator==(const PlacedFile&) const = default;
};
using PlacedFiles = std::map<std::string, PlacedFile>;  // target (as in JournalStep) -> what was placed

struct BeginRecord {
  std::string id;         // also the name of backup/<id>/ and history/<id>.jsonl
  std::string operation;  // "install" or "uninstall"
  std::string archive;    // file name
  std::string sha256;     // of the archive, when computed
  std::string cudnn_version;
  std::string time;                       // UTC, ISO 8601
  std::vector<std::string> dirs_created;  // root-relative, parents first
  std::vector<JournalStep> steps;
  std::optional<EnvEdit> env_edit;  // Windows: the registry PATH, old and new bytes
  std::string env_entry;            // the directory the edit put on PATH (UTF-8), for messages
};

struct JournalState {
  std::optional<BeginRecord> begin;
  bool staged = false;                 // every temporary file is complete and durable
  bool committed = false;              // the transaction is complete
  PlacedFiles placed;                  // from the "commit" record; empty in those of earlier builds
  std::optional<std::string> undo_of;  // --rollback of committed transaction <id> in progress
  std::size_t valid_bytes = 0;         // length of the prefix of whole, intact records
  std::string damage;                  // what is wrong when the journal is damaged, not torn; else empty
};

std::string begin_record(const BeginRecord& begin);
std::string marker_record(std::string_view type);  // "staged"
std::string commit_record(const PlacedFiles& placed);
std::string undo_begin_record(const std::string& id);
JournalState parse_journal(std::string_view text);

}  // namespace cudnn_install
