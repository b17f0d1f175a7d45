// identify_archive (archive_identity.hpp): the file's name, else its sha256, else its top folder.
#include "cudnn_install/archive_identity.hpp"

#include <fstream>

#include "archive_inspect.hpp"
#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/filesystem.hpp"

namespace fs = std::filesystem;

namespace cudnn_install {
namespace {

constexpr const char* kRestoreNameHint =
    "restore the name NVIDIA gave the download (e.g. cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip), or pass "
    "NVIDIA's redistrib_<version>.json for it with --manifest";

// The container of a renamed file: its extension, else what its first bytes are.
std::optional<Container> container_of_renamed(const fs::path& path) {
  if (auto c = container_from_extension(path.filename().string())) return c;
  std::ifstream in(path, std::ios::binary);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  std::string kind = content_kind(head);
  if (kind == "a zip archive") return Container::Zip;
  if (kind == "an xz-compressed file") return Container::TarXz;
  if (kind == "a gzip-compressed file") return Container::Tgz;
  return std::nullopt;
}

Error cannot_tell(const std::string& file_name, const std::string& why) {
  return Error{ErrorCode::BadName,
               "'" + file_name +
                   "' is not a cuDNN archive name and its sha256 is not a known archive's, so its content would have "
                   "to say which cuDNN, platform and CUDA version it is for, but " +
                   why + ": " + kRestoreNameHint,
               file_name};
}

Result<ArchiveIdentity> identify_by_content(const fs::path& path, std::string sha256) {
  std::string file_name = path.filename().string();
  auto container = container_of_renamed(path);
  if (!container) return std::unexpected(cannot_tell(file_name, "it is not a zip, tar.xz or tgz file"));
  auto reader = open_archive(path, *container);
  if (!reader) return std::unexpected(cannot_tell(file_name, "it cannot be read (" + reader.error().message + ")"));
  auto listing = (*reader)->list([](const RawEntry&) { return false; }, {});
  if (!listing) return std::unexpected(cannot_tell(file_name, "it cannot be read (" + listing.error().message + ")"));
  std::string top = listing_top_folder(listing->entries);
  auto name = name_from_top_folder(top, file_name);
  if (!name) return std::unexpected(name.error());
  if (name->container != *container)
    return fail(ErrorCode::BadArchive,
                "'" + file_name + "' is " + to_string(*container) + " but its top folder '" + top + "' names a ." +
                    to_string(name->container) + " archive: it was repacked; download it again from NVIDIA",
                file_name);
  std::string how = "recognised by its top folder as " + name->file_name + " (its sha256 is not known)";
  return ArchiveIdentity{std::move(*name), IdentifiedBy::Content, std::move(sha256), std::move(how)};
}

}  // namespace

std::optional<ArchiveName> name_by_sha256(const std::string& sha256,
                                          const std::optional<std::vector<ManifestEntry>>& manifest,
                                          const std::string& manifest_name, std::string* source) {
  auto named = [&](const std::string& file_name, std::string from) -> std::optional<ArchiveName> {
    auto name = parse_archive_name(file_name);
    if (!name) return std::nullopt;  // a manifest also lists samples and the like
    if (source) *source = std::move(from);
    return *name;
  };
  if (manifest)
    for (const auto& e : *manifest)
      if (!sha256.empty() && e.sha256 == sha256)
        if (auto name = named(e.file_name, "manifest " + manifest_name)) return name;
  for (const auto& k : known_archives())
    if (!sha256.empty() && sha256 == k.sha256)
      if (auto name = named(k.file_name, "the table of known cuDNN archives")) return name;
  return std::nullopt;
}

std::string listing_top_folder(const std::vector<RawEntry>& entries) {
  std::string top;
  for (const auto& e : entries) {
    std::string name = normalise_entry_name(e.name);
    auto slash = name.find('/');
    if (slash == std::string::npos && e.type != EntryType::Directory) return {};
    std::string first = name.substr(0, slash);
    if (top.empty())
      top = first;
    else if (first != top)
      return {};
  }
  return top;
}

Result<ArchiveName> name_from_top_folder(const std::string& top_folder, const std::string& file_name) {
  std::string why = top_folder.empty() ? "its files are not under one top folder"
                    : top_folder == "cuda"
                        ? "its top folder is 'cuda' (as in archives up to cuDNN 8.2), which says none of these"
                        : "its top folder '" + top_folder + "' is not an NVIDIA archive name";
  for (const char* ext : {".zip", ".tar.xz"})
    if (auto name = parse_archive_name(top_folder + ext); name && name->era != NameEra::Legacy) return name;
  return std::unexpected(cannot_tell(file_name, why));
}

// The user's file, not the state's: a symlink is fine, a FIFO or a device is refused before it is
// read, and so is a file far larger than any of NVIDIA's manifests.
Result<std::optional<std::vector<ManifestEntry>>> read_manifest_file(const std::optional<fs::path>& path) {
  if (!path) return std::nullopt;
  TRY(check_regular_file(*path, FileRole::Manifest));
  std::error_code ec;
  if (auto bytes = fs::file_size(*path, ec); !ec && bytes > util::kSmallFileLimit)
    return fail(ErrorCode::Usage, "the manifest '" + path->string() + "' is " + util::human_bytes(bytes) +
                                      ": NVIDIA's redistrib_*.json manifests are far smaller. Is it the right file?");
  auto text = util::read_text_file(*path);
  if (!text) return fail(ErrorCode::Usage, "cannot read the manifest '" + path->string() + "'");
  TRY_ASSIGN(auto entries, parse_manifest(*text));
  return entries;
}

Result<ArchiveIdentity> identify_archive(const fs::path& path, const std::optional<fs::path>& manifest,
                                         const HashProgress& progress) {
  std::string file_name = path.filename().string();
  if (auto name = parse_archive_name(file_name))
    return ArchiveIdentity{std::move(*name), IdentifiedBy::FileName, "", ""};
  TRY(check_regular_file(path));  // before reading: a FIFO would block the hash for ever
  TRY_ASSIGN(auto entries, read_manifest_file(manifest));
  TRY_ASSIGN(auto sha, sha256_file(path, progress));
  std::string source;
  if (auto name = name_by_sha256(sha, entries, manifest ? manifest->filename().string() : "", &source)) {
    std::string how = "recognised by its sha256 as " + name->file_name + " (" + source + ")";
    return ArchiveIdentity{std::move(*name), IdentifiedBy::Sha256, std::move(sha), std::move(how)};
  }
  return identify_by_content(path, std::move(sha));
}

}  // namespace cudnn_install
