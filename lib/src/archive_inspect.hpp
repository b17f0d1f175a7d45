// Shared by inspect_archive (archive.cpp) and inspect_and_spool (archive_spool.cpp).
#pragma once
#include <filesystem>
#include <functional>

#include "cudnn_install/archive.hpp"

namespace cudnn_install {

using ReadListing = std::function<Result<Listing>(const std::filesystem::path&, Container)>;
// The file-name checks, then the listing that `read` makes of the archive, then the entry checks
// (safety, completeness, version header): everything inspect_archive promises.
// `read` for a reader's own listing or a spooling pass: opens the archive and hands it over.
ReadListing read_with(std::function<Result<Listing>(ArchiveReader&)> read);
Result<ArchiveInfo> inspect_with(const std::filesystem::path& path, NameCheck check, const ReadListing& read);

}  // namespace cudnn_install
