// Shared by inspect_archive (archive.cpp) and inspect_and_spool (archive_spool.cpp).
#pragma once
#include <filesystem>
#include <functional>

#include "cudnn_install/archive.hpp"

namespace cudnn_install {

using ReadListing = std::function<Result<Listing>(ArchiveReader&)>;
// The file-name checks, then the listing that `read` makes of the opened archive, then the entry
// checks (safety, completeness, version header): everything inspect_archive promises.
Result<ArchiveInfo> inspect_with(const std::filesystem::path& path, NameCheck check, const ReadListing& read);

}  // namespace cudnn_install
