// Stage 1: an archive on disk -> ArchiveInfo (name fields, entries with roles, header version).
// Everything here reads, except inspect_and_spool, which writes numbered copies into the spool only.
// Unsafe archives are refused before any later stage.
#pragma once
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/archive_reader.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/filesystem.hpp"
#include "cudnn_install/interrupt.hpp"

namespace cudnn_install {

// What an entry is for; decides where it goes in the toolkit.
enum class Role { Header, Dll, ImportLib, SharedLib, StaticLib, License, Unknown, LoaderConfig };
const char* to_string(Role role);

struct Entry {
  RawEntry raw;
  std::string rel;        // path inside the archive's top folder, '/'-separated
  std::string file_name;  // last component of rel
  Role role = Role::Unknown;
};

struct ArchiveInfo {
  std::filesystem::path path;
  // NVIDIA's name: the file's own, or the one its sha256 or top folder gave (archive_identity.hpp).
  // Always present from inspect_archive and its siblings; absent only from inspect_listing(nullopt).
  std::optional<ArchiveName> name;
  std::string identified;  // for a renamed file, how it was recognised, for people; else empty
  Container container = Container::TarXz;
  TargetOs os = TargetOs::Linux;
  std::vector<Entry> entries;        // files and symlinks only, in archive order
  std::vector<std::string> ignored;  // entries not installed (license, unknown), with why
  CudnnVersion header_version;       // from cudnn_version.h (cudnn.h before 8.0)
  std::string version_header;        // which entry it came from
  std::uint64_t archive_bytes = 0;   // size of the file itself
  // Raw entry name -> a copy of its bytes already written beside the toolkit (inspect_and_spool),
  // which the transaction moves into place by rename instead of reading the archive again.
  std::map<std::string, std::filesystem::path> spooled;
  Listing listing;  // everything read, as read: what archive_memo.hpp remembers
};

// The archive argument as the user gave it: trailing separators dropped (the name is the last
// component, never ''), and a directory (an extracted archive) refused with what to give instead.
Result<std::filesystem::path> archive_argument(const std::filesystem::path& given);

// `named`: NVIDIA's name of the file as identify_archive found it; nullopt: the file's own name,
// refused (ErrorCode::BadName) when it is not NVIDIA's.
Result<ArchiveInfo> inspect_archive(const std::filesystem::path& path, const std::optional<ArchiveName>& named,
                                    const ReadProgress& progress = {});
// The same for a real install from a compressed tar, which cannot be searched: the one pass that
// lists and checks the entries also copies every file into spool_dir (numbered files, never the
// archive's names, on the toolkit's filesystem), so the xz stream is decoded once, not twice.
// The copies are only ever renamed into place after the checks; remove_spool() clears the rest.
// A signal seen in `interrupts` between entries or chunks stops it (ErrorCode::Interrupted, ...).
Result<ArchiveInfo> inspect_and_spool(const std::filesystem::path& path, const std::optional<ArchiveName>& named,
                                      FileSystem& fs, const std::filesystem::path& spool_dir,
                                      const ReadProgress& progress = {}, Interrupts* interrupts = nullptr);
// The same checks on a listing read before (archive_memo.hpp), without reading the archive.
Result<ArchiveInfo> inspect_with_listing(const std::filesystem::path& path, const std::optional<ArchiveName>& named,
                                         Listing listing);
// Removes spool_dir and whatever is left in it (nothing there is fine).
Result<void> remove_spool(FileSystem& fs, const std::filesystem::path& spool_dir);
// The same, from a listing already read (tests, fuzzing).
Result<ArchiveInfo> inspect_listing(Listing listing, std::optional<ArchiveName> name, Container container);

}  // namespace cudnn_install
