// Stage 1a: the grammar of NVIDIA's cuDNN archive file names, every era since cuDNN 5.
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

enum class TargetOs { Linux, Windows, MacOs };
enum class Container { Zip, TarXz, Tgz };
enum class NameEra {
  Legacy,        // cudnn-<cuda>-<os>-v<ver>.{tgz,zip}          (5.1 .. 8.2)
  ArchiveMinor,  // cudnn-<plat>-<ver>_cuda<maj.min>-archive.*  (8.3 .. 8.4, 9.27 windows-arm64)
  ArchiveMajor,  // cudnn-<plat>-<ver>_cuda<maj>-archive.*      (8.5 ..)
};

// A cuDNN version as it appears in names (up to four parts) and headers (three parts).
struct CudnnVersion {
  int major = 0;
  int minor = 0;
  std::optional<int> patch;  // absent in the oldest names ("v7.1")
  std::optional<int> build;  // the fourth part; never in cudnn_version.h

  // CUDNN_VERSION as the header computes it: 1000*major (<= 8) or 10000*major (>= 9).
  int number() const;
  std::string to_string() const;
  // Same release: major.minor, and patch where both have one.
  bool same_release(const CudnnVersion& other) const;
};

struct CudaTag {
  int major = 0;
  std::optional<int> minor;
  std::string text;  // as written in the name: "12", "11.5", "10.2"
};

struct ArchiveName {
  std::string file_name;
  NameEra era = NameEra::ArchiveMajor;
  CudnnVersion version;
  std::string version_text;  // "9.19.0.56"
  std::string platform;      // "linux-x86_64", "windows10-x64", ...
  TargetOs os = TargetOs::Linux;
  CudaTag cuda;
  Container container = Container::TarXz;
  std::string top_folder;  // "cuda" (legacy) or the name without extension
};

// Parses a bare file name (no directories). Refusals show the expected forms.
Result<ArchiveName> parse_archive_name(std::string_view file_name);

// The container guessed from the extension alone, for a renamed file (archive_identity.hpp).
std::optional<Container> container_from_extension(std::string_view file_name);

const char* to_string(TargetOs os);
const char* to_string(Container c);

}  // namespace cudnn_install
