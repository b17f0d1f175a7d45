// What journal and history records say is untrusted: whoever could write the state directory
// could have written it. Every id and path in a record is checked against what the tool itself
// writes before anything acts on it, and the state's own directories must be real directories.
#pragma once
#include <filesystem>
#include <string_view>

#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "txn_journal.hpp"

namespace cudnn_install {

// A transaction id as new ids are made: letters, digits, '.', '-' and '_', a letter or digit first,
// no "..", at most 80 characters (it names backup/<id>/ and history/<id>.jsonl).
bool valid_txn_id(std::string_view id);

// ErrorCode::Conflict naming `record` (the file it was read from) and what is wrong, unless every
// path in `begin` is one the tool writes: targets relative, normalised, outside the state directory
// and of a kind it installs (or its loader configuration file); temporaries beside their targets
// and backups in backup/<id>/, under exactly the names the tool gives them.
Result<void> check_begin(const BeginRecord& begin, const std::filesystem::path& record);

// One of the state directory's own directories (backup/, history/, spool/, backup/<id>/): true when
// it is a real directory, false when absent, a Conflict (exit 3) when it is anything else (a symlink there
// would lead the tool's writes and removals outside the toolkit).
Result<bool> state_subdir(FileSystem& fs, const std::filesystem::path& dir);
// The same for one of its files (journal.jsonl, history/<id>.jsonl): true for a regular file.
Result<bool> state_file(FileSystem& fs, const std::filesystem::path& file);

}  // namespace cudnn_install
