// Stage 1: an archive on disk -> ArchiveInfo (name fields, entries with roles, header version).
// Everything here reads; nothing is written. Unsafe archives are refused before any later stage.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/archive_reader.hpp"
#include "cudnn_install/error.hpp"

namespace cudnn_install {

// What an entry is for; decides where it goes in the toolkit.
enum class Role { Header, Dll, ImportLib, SharedLib, StaticLib, License, Unknown, LoaderConfig };
// The toolkit directory a role lands in (Toolkit maps these to real paths).
enum class DestDir { Include, Bin, Lib, ImportLib, None };

struct Entry {
  RawEntry raw;
  std::string rel;        // path inside the archive's top folder, '/'-separated
  std::string file_name;  // last component of rel
  Role role = Role::Unknown;
};

enum class NameCheck { Enforce, Skip };  // Skip = --force-name

struct ArchiveInfo {
  std::filesystem::path path;
  std::optional<ArchiveName> name;  // absent only with --force-name and an unparsable name
  Container container = Container::TarXz;
  TargetOs os = TargetOs::Linux;
  std::vector<Entry> entries;       // files and symlinks only, in archive order
  std::vector<std::string> ignored; // entries not installed (license, unknown), with why
  CudnnVersion header_version;      // from cudnn_version.h (cudnn.h before 8.0)
  std::string version_header;       // which entry it came from
  std::uint64_t archive_bytes = 0;  // size of the file itself
};

Result<ArchiveInfo> inspect_archive(const std::filesystem::path& path, NameCheck check);
// The same, from a listing already read (tests, fuzzing).
Result<ArchiveInfo> inspect_listing(Listing listing, std::optional<ArchiveName> name, Container container);

// --- pieces, public for their unit tests ---
Role classify(const std::string& rel);
DestDir dest_of(Role role);
const char* to_string(Role role);
// '\\' -> '/', no leading "./", no trailing '/'.
std::string normalise_entry_name(std::string name);
// Refuses unsafe entries; each error names the entry and why.
Result<void> check_entry_safety(const std::vector<RawEntry>& entries, TargetOs os);
// Parses CUDNN_MAJOR/MINOR/PATCHLEVEL from a header's text.
Result<CudnnVersion> parse_version_header(const std::string& text, const std::string& entry_name);

}  // namespace cudnn_install
