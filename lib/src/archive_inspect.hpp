// The pieces of inspection (archive.cpp, archive_layout.cpp, archive_safety.cpp, archive_spool.cpp),
// shared by inspect_archive and inspect_and_spool and tested on their own.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cudnn_install/archive.hpp"

namespace cudnn_install {

// The toolkit directory a role lands in (Toolkit maps these to real paths).
enum class DestDir { Include, Bin, Lib, ImportLib, None };

Role classify(const std::string& rel);
DestDir dest_of(Role role);
// '\\' -> '/', no leading "./", no trailing '/'.
std::string normalise_entry_name(std::string name);
// Refuses unsafe entries; each error names the entry and why.
Result<void> check_entry_safety(const std::vector<RawEntry>& entries, TargetOs os);
// cudnn_version.h, or cudnn.h before 8.0: the entries whose text inspection keeps.
bool is_version_header(const RawEntry& e);
// Parses CUDNN_MAJOR/MINOR/PATCHLEVEL from a header's text.
Result<CudnnVersion> parse_version_header(const std::string& text, const std::string& entry_name);

using ReadListing = std::function<Result<Listing>(const std::filesystem::path&, Container)>;
// The file-name checks, then the listing that `read` makes of the archive, then the entry checks
// (safety, completeness, version header): everything inspect_archive promises.
// `read` for a reader's own listing or a spooling pass: opens the archive and hands it over.
ReadListing read_with(std::function<Result<Listing>(ArchiveReader&)> read);
Result<ArchiveInfo> inspect_with(const std::filesystem::path& path, NameCheck check, const ReadListing& read);

}  // namespace cudnn_install
