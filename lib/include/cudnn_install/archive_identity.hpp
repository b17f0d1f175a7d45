// Stage 1, before the archive is inspected: which NVIDIA archive a file is (issue 19). Its own
// name when it is NVIDIA's; for a renamed download ("... (1).zip", "cudnn.zip") its sha256 in the
// manifest or the table of known archives; else its content (the top folder, which NVIDIA names as
// the archive, checked against cudnn_version.h when it is inspected). Never a guess: an archive that
// cannot tell is refused. Whatever identified it, the rest of the pipeline sees NVIDIA's name, so
// the integrity check and the CUDA-major check always run.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cudnn_install/archive_name.hpp"
#include "cudnn_install/archive_reader.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install {

enum class IdentifiedBy { FileName, Sha256, Content };

struct ArchiveIdentity {
  ArchiveName name;  // NVIDIA's name for the archive, whatever the file is called
  IdentifiedBy by = IdentifiedBy::FileName;
  std::string sha256;  // computed to identify it (Sha256, Content); empty for FileName
  std::string how;     // for people, empty for FileName: "recognised by its sha256 as cudnn-...-archive.zip (...)"
};

// NVIDIA's name of the archive with this sha256: the manifest's first, then the known-archives table.
// `source` gets where it was found ("manifest redistrib_9.19.0.json", "the table of known cuDNN archives").
std::optional<ArchiveName> name_by_sha256(const std::string& sha256,
                                          const std::optional<std::vector<ManifestEntry>>& manifest,
                                          const std::string& manifest_name, std::string* source = nullptr);

// NVIDIA's name from the archive's top folder ("cudnn-linux-x86_64-9.19.0.56_cuda13-archive"); the
// refusal says what is missing (the legacy "cuda" folder names no version, platform or CUDA).
Result<ArchiveName> name_from_top_folder(const std::string& top_folder, const std::string& file_name);

// The top folder shared by every entry of a listing ("" when there is none).
std::string listing_top_folder(const std::vector<RawEntry>& entries);

// The whole identification of the file at `path`. Reads nothing when the name is NVIDIA's; else
// hashes the file (progress), and when the hash is unknown too, lists it for its top folder.
Result<ArchiveIdentity> identify_archive(const std::filesystem::path& path,
                                         const std::optional<std::filesystem::path>& manifest,
                                         const HashProgress& progress = {});

// A --manifest file read and parsed; nullopt when none was given.
Result<std::optional<std::vector<ManifestEntry>>> read_manifest_file(const std::optional<std::filesystem::path>& path);

}  // namespace cudnn_install
