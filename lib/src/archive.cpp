#include "cudnn_install/archive.hpp"

#include <algorithm>
#include <map>

#include "archive_inspect.hpp"
#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive_identity.hpp"

namespace cudnn_install {
namespace {

TargetOs guess_os(const std::vector<Entry>& entries) {
  bool dll = std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return e.role == Role::Dll; });
  return dll ? TargetOs::Windows : TargetOs::Linux;
}

const Entry* find_version_header(const std::vector<Entry>& entries) {
  for (const char* wanted : {"cudnn_version.h", "cudnn.h"})
    for (const auto& e : entries)
      if (e.role == Role::Header && e.file_name == wanted && e.raw.type == EntryType::File) return &e;
  return nullptr;
}

Result<void> check_completeness(const std::vector<Entry>& entries, const std::string& label) {
  auto has = [&](auto pred) { return std::any_of(entries.begin(), entries.end(), pred); };
  if (!has([](const Entry& e) { return e.role == Role::Header; }))
    return fail(ErrorCode::BadArchive, label + " has no include/ headers: it is not a complete cuDNN archive", label);
  if (!has([](const Entry& e) {
        return e.role == Role::Dll || e.role == Role::SharedLib || e.role == Role::ImportLib ||
               e.role == Role::StaticLib;
      }))
    return fail(ErrorCode::BadArchive,
                label + " has no libraries (bin/, lib/ or lib64/): it is not a complete cuDNN archive", label);
  return {};
}

std::vector<Entry> to_entries(const std::vector<RawEntry>& raw, const std::string& top) {
  std::vector<Entry> entries;
  for (const auto& r : raw) {
    if (r.type == EntryType::Directory) continue;
    Entry e{r, normalise_entry_name(r.name), {}, Role::Unknown};
    if (!top.empty()) e.rel = e.rel.substr(top.size() + 1);
    e.file_name = e.rel.substr(e.rel.rfind('/') + 1);
    e.role = classify(e.rel);
    entries.push_back(std::move(e));
  }
  return entries;
}

// A symlink installs only where its chain ends at a file that is installed too: a cuDNN-named link
// to a skipped file would dangle, or lead to the toolkit's own file of that name.
void skip_links_to_skipped_files(std::vector<Entry>& entries, std::vector<std::string>& ignored) {
  std::map<std::string, const Entry*> by_rel;
  for (const auto& e : entries) by_rel[e.rel] = &e;
  std::vector<Entry*> skipped;
  for (auto& e : entries) {
    if (e.raw.type != EntryType::Symlink || dest_of(e.role) == DestDir::None) continue;
    std::string dir = e.rel.substr(0, e.rel.rfind('/') + 1);
    const Entry* at = &e;
    for (int hops = 0; at && at->raw.type == EntryType::Symlink && hops < 40; ++hops) {
      auto next = by_rel.find(dir + at->raw.link_target);
      at = next == by_rel.end() ? nullptr : next->second;
    }
    if (!at || dest_of(at->role) == DestDir::None) skipped.push_back(&e);
  }
  for (Entry* e : skipped) {
    e->role = Role::Unknown;
    ignored.push_back(e->rel + " (a link to a file that is not installed, not installed)");
  }
}

}  // namespace

bool is_version_header(const RawEntry& e) {
  return e.name.ends_with("cudnn_version.h") || e.name.ends_with("/cudnn.h") || e.name == "cudnn.h";
}

Result<CudnnVersion> parse_version_header(const std::string& text, const std::string& entry_name) {
  auto major = util::define_value(text, "CUDNN_MAJOR"), minor = util::define_value(text, "CUDNN_MINOR"),
       patch = util::define_value(text, "CUDNN_PATCHLEVEL");
  if (!major || !minor || !patch)
    return fail(ErrorCode::BadArchive,
                "'" + entry_name + "' does not define CUDNN_MAJOR, CUDNN_MINOR and CUDNN_PATCHLEVEL", entry_name);
  return CudnnVersion{*major, *minor, patch, std::nullopt};
}

Result<ArchiveInfo> inspect_listing(Listing listing, std::optional<ArchiveName> name, Container container) {
  std::string label = name ? name->file_name : std::string("the archive");
  std::string top = listing_top_folder(listing.entries);
  ArchiveInfo info;
  info.listing = listing;
  info.name = name;
  info.container = container;
  info.entries = to_entries(listing.entries, top);
  info.os = name ? name->os : guess_os(info.entries);
  TRY(check_entry_safety(listing.entries, info.os));
  TRY(check_completeness(info.entries, label));
  const Entry* header = find_version_header(info.entries);
  if (!header) return fail(ErrorCode::BadArchive, label + " has no cudnn_version.h (or cudnn.h)", label);
  TRY_ASSIGN(auto version, parse_version_header(listing.captured[header->raw.name], header->raw.name));
  info.header_version = version;
  info.version_header = header->raw.name;
  if (name && !name->version.same_release(version))
    return fail(ErrorCode::VersionMismatch,
                "the file name says cuDNN " + name->version.to_string() + " but " + header->raw.name + " says " +
                    version.to_string() + ": the archive was renamed or repacked; refusing it",
                header->raw.name);
  for (const auto& e : info.entries)
    if (dest_of(e.role) == DestDir::None)
      info.ignored.push_back(e.rel + (e.role == Role::License            ? " (license, not installed)"
                                      : installable_but_not_cudnn(e.rel) ? " (not a cuDNN file, not installed)"
                                                                         : " (unknown, not installed)"));
  skip_links_to_skipped_files(info.entries, info.ignored);
  return info;
}

Result<ArchiveInfo> inspect_with(const std::filesystem::path& path, const std::optional<ArchiveName>& named,
                                 const ReadListing& read) {
  auto name = named ? Result<ArchiveName>(*named) : parse_archive_name(path.filename().string());
  if (!name) return std::unexpected(name.error());
  TRY_ASSIGN(auto listing, read(path, name->container));
  auto info = inspect_listing(std::move(listing), *name, name->container);
  if (!info) return info;
  info->path = path;
  std::error_code ec;
  info->archive_bytes = std::filesystem::file_size(path, ec);
  return info;
}

ReadListing read_with(std::function<Result<Listing>(ArchiveReader&)> read) {
  return [read = std::move(read)](const std::filesystem::path& path, Container container) -> Result<Listing> {
    TRY_ASSIGN(auto reader, open_archive(path, container));
    return read(*reader);
  };
}

Result<ArchiveInfo> inspect_archive(const std::filesystem::path& path, const std::optional<ArchiveName>& named,
                                    const ReadProgress& progress) {
  return inspect_with(path, named,
                      read_with([&](ArchiveReader& reader) { return reader.list(is_version_header, progress); }));
}

Result<ArchiveInfo> inspect_with_listing(const std::filesystem::path& path, const std::optional<ArchiveName>& named,
                                         Listing listing) {
  return inspect_with(path, named, [&](const std::filesystem::path&, Container) -> Result<Listing> { return listing; });
}

Result<std::unique_ptr<ArchiveReader>> open_archive(const std::filesystem::path& path, Container container) {
  TRY(check_regular_file(path));
  TRY(check_archive_content(path, container));
  if (container == Container::Zip) return make_zip_reader(path, {});
  return make_tar_reader(path, {});
}

Result<std::unique_ptr<ArchiveReader>> open_archive_memory(std::string bytes, Container container) {
  if (bytes.empty()) return fail(ErrorCode::BadArchive, "the archive is empty (0 bytes)");
  if (container == Container::Zip) return make_zip_reader({}, std::move(bytes));
  return make_tar_reader({}, std::move(bytes));
}

}  // namespace cudnn_install
