#include "cudnn_install/archive_name.hpp"

#include <charconv>
#include <regex>
#include <vector>

namespace cudnn_install {
namespace {

constexpr const char* kExpectedForms =
    "expected one of:\n"
    "  cudnn-<plat>-<ver>_cuda<major>-archive.{tar.xz,zip}   e.g. "
    "cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip (8.5 and later)\n"
    "  cudnn-<plat>-<ver>_cuda<major.minor>-archive.{tar.xz,zip}   e.g. "
    "cudnn-linux-x86_64-8.4.1.50_cuda11.6-archive.tar.xz (8.3-8.4)\n"
    "  cudnn-<cuda>-<os>-v<ver>.{tgz,zip}   e.g. cudnn-11.4-windows-x64-v8.2.2.26.zip (up to 8.2)\n"
    "(a renamed download is recognised by its sha256, with --manifest, or by its top folder).";

// No real version part comes near this; the bound keeps CUDNN_VERSION arithmetic from overflowing.
constexpr int kMaxVersionPart = 99999;

// "9.19.0.56" -> {9, 19, 0, 56}; empty on anything but dot-separated decimal numbers.
std::vector<int> split_numbers(const std::string& text) {
  std::vector<int> parts;
  const char* p = text.data();
  const char* end = p + text.size();
  while (true) {
    int value = 0;
    auto [next, ec] = std::from_chars(p, end, value);
    if (ec != std::errc{} || value > kMaxVersionPart) return {};
    parts.push_back(value);
    if (next == end) return parts;
    if (*next != '.') return {};
    p = next + 1;
  }
}

std::optional<CudnnVersion> parse_version(const std::string& text) {
  auto parts = split_numbers(text);
  if (parts.size() < 2 || parts.size() > 4) return std::nullopt;
  CudnnVersion v{parts[0], parts[1], std::nullopt, std::nullopt};
  if (parts.size() > 2) v.patch = parts[2];
  if (parts.size() > 3) v.build = parts[3];
  return v;
}

std::optional<CudaTag> parse_cuda(const std::string& text) {
  auto parts = split_numbers(text);
  if (parts.empty() || parts.size() > 2) return std::nullopt;
  CudaTag tag{parts[0], std::nullopt, text};
  if (parts.size() == 2) tag.minor = parts[1];
  return tag;
}

std::optional<TargetOs> os_of_platform(const std::string& platform) {
  if (platform.starts_with("linux-")) return TargetOs::Linux;
  if (platform.starts_with("windows")) return TargetOs::Windows;
  if (platform.starts_with("osx-")) return TargetOs::MacOs;
  return std::nullopt;
}

// Container from an extension; the legacy era uses .tgz/.zip, the archive eras .tar.xz/.zip.
std::optional<Container> container_of(const std::string& ext) {
  if (ext == "zip") return Container::Zip;
  if (ext == "tar.xz") return Container::TarXz;
  if (ext == "tgz") return Container::Tgz;
  return std::nullopt;
}

Result<ArchiveName> finish(ArchiveName name, const std::string& version, const std::string& cuda,
                           const std::string& ext) {
  auto v = parse_version(version);
  auto c = parse_cuda(cuda);
  auto os = os_of_platform(name.platform);
  auto container = container_of(ext);
  if (!v || !c || !os || !container)
    return fail(ErrorCode::BadName, "'" + name.file_name + "' is not a cuDNN archive name; " + kExpectedForms,
                name.file_name);
  if ((*os == TargetOs::Windows) != (*container == Container::Zip))
    return fail(ErrorCode::BadName,
                "'" + name.file_name + "': Windows archives are .zip and Linux/macOS archives are .tar.xz or .tgz",
                name.file_name);
  name.version = *v;
  name.version_text = version;
  name.cuda = *c;
  name.os = *os;
  name.container = *container;
  return name;
}

}  // namespace

int CudnnVersion::number() const {
  int scale = major >= 9 ? 10000 : 1000;
  return major * scale + minor * 100 + patch.value_or(0);
}

std::string CudnnVersion::to_string() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (patch) s += "." + std::to_string(*patch);
  if (build) s += "." + std::to_string(*build);
  return s;
}

bool CudnnVersion::same_release(const CudnnVersion& other) const {
  if (major != other.major || minor != other.minor) return false;
  return !patch || !other.patch || *patch == *other.patch;
}

Result<ArchiveName> parse_archive_name(std::string_view file_name) {
  static const std::regex modern(
      R"(cudnn-((?:linux|windows)-[a-z0-9_]+)-([0-9.]+)_cuda([0-9.]+)-archive\.(tar\.xz|zip))");
  static const std::regex legacy(
      R"(cudnn-([0-9]+\.[0-9]+)-((?:linux|windows[0-9]*|osx)-[a-z0-9_]+)-v([0-9.]+)\.(tgz|zip))");
  ArchiveName name;
  name.file_name = std::string(file_name);
  std::smatch m;
  if (std::regex_match(name.file_name, m, modern)) {
    name.platform = m[1];
    name.era = m[3].str().find('.') == std::string::npos ? NameEra::ArchiveMajor : NameEra::ArchiveMinor;
    name.top_folder = name.file_name.substr(0, name.file_name.size() - m[4].length() - 1);
    return finish(std::move(name), m[2], m[3], m[4]);
  }
  if (std::regex_match(name.file_name, m, legacy)) {
    name.platform = m[2];
    name.era = NameEra::Legacy;
    name.top_folder = "cuda";
    return finish(std::move(name), m[3], m[1], m[4]);
  }
  return fail(ErrorCode::BadName, "'" + name.file_name + "' is not a cuDNN archive name; " + kExpectedForms,
              name.file_name);
}

std::optional<Container> container_from_extension(std::string_view file_name) {
  if (file_name.ends_with(".zip")) return Container::Zip;
  if (file_name.ends_with(".tar.xz") || file_name.ends_with(".txz")) return Container::TarXz;
  if (file_name.ends_with(".tgz") || file_name.ends_with(".tar.gz")) return Container::Tgz;
  return std::nullopt;
}

const char* to_string(TargetOs os) {
  switch (os) {
    case TargetOs::Linux:
      return "linux";
    case TargetOs::Windows:
      return "windows";
    case TargetOs::MacOs:
      return "macos";
  }
  return "?";
}

const char* to_string(Container c) {
  switch (c) {
    case Container::Zip:
      return "zip";
    case Container::TarXz:
      return "tar.xz";
    case Container::Tgz:
      return "tgz";
  }
  return "?";
}

}  // namespace cudnn_install
