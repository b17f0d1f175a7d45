// Maps archive paths of every era to roles: bin/, bin/x64/ (9.18+), lib/x64/, flat lib/ (8.3-8.4),
// lib/, lib64/ and targets/<arch>/ (old ppc64le) all normalise to the same few roles.
#include <vector>

#include "archive_inspect.hpp"
#include "base/util.hpp"
#include "cudnn_install/archive.hpp"

namespace cudnn_install {
namespace {

std::vector<std::string> components(const std::string& rel) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    if (slash > start) parts.push_back(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

bool is_shared_lib(const std::string& name) {
  return name.starts_with("lib") &&
         (name.ends_with(".so") || name.find(".so.") != std::string::npos || name.ends_with(".dylib"));
}

Role classify_lib_file(const std::string& name) {
  if (name.ends_with(".lib")) return Role::ImportLib;
  if (name.ends_with(".a")) return Role::StaticLib;
  if (is_shared_lib(name)) return Role::SharedLib;
  return Role::Unknown;
}

// The role an entry's place and extension give it, before asking whose file it is.
Role role_by_place(const std::string& rel) {
  auto parts = components(rel);
  if (parts.size() >= 3 && parts[0] == "targets") parts.erase(parts.begin(), parts.begin() + 2);
  if (parts.empty()) return Role::Unknown;
  const std::string& name = parts.back();
  if (parts.size() == 1)
    return (name == "LICENSE" || name == "LICENSE.txt" || name == "NVIDIA_SLA_cuDNN_Support.txt") ? Role::License
                                                                                                  : Role::Unknown;
  const std::string& top = parts[0];
  bool flat = parts.size() == 2;
  bool x64 = parts.size() == 3 && parts[1] == "x64";
  if (top == "include" && flat && (name.ends_with(".h") || name.ends_with(".hpp"))) return Role::Header;
  if (top == "bin" && (flat || x64) && name.ends_with(".dll")) return Role::Dll;
  if ((top == "lib" || top == "lib64") && (flat || x64)) return classify_lib_file(name);
  return Role::Unknown;
}

// cuDNN's own files, as NVIDIA's archives of every era name them (../shared/reference,
// archive-layouts.md): cudnn*.h, libcudnn*.so*/.a/.dylib, cudnn*.dll, cudnn*.lib.
bool is_cudnn_name(Role role, const std::string& file_name) {
  std::string name = util::lower(file_name);
  switch (role) {
    case Role::SharedLib:
    case Role::StaticLib:
      return name.starts_with("libcudnn");
    case Role::Header:
    case Role::Dll:
    case Role::ImportLib:
      return name.starts_with("cudnn");
    default:
      return true;
  }
}

}  // namespace

bool installable_but_not_cudnn(const std::string& rel) {
  Role role = role_by_place(rel);
  return dest_of(role) != DestDir::None && !is_cudnn_name(role, rel.substr(rel.rfind('/') + 1));
}

// An archive installs only cuDNN's own files: anything else in it (a CUDA runtime, cuda.h) could
// replace the toolkit's files and be loaded as root by the verify step. Such entries are Unknown:
// listed as not installed, never written.
Role classify(const std::string& rel) {
  Role role = role_by_place(rel);
  return is_cudnn_name(role, rel.substr(rel.rfind('/') + 1)) ? role : Role::Unknown;
}

std::uint32_t installed_mode(std::string_view file_name, std::uint32_t archive_mode) {
  std::string name = util::lower(std::string(file_name.substr(file_name.find_last_of("/\\") + 1)));
  bool executable = (archive_mode & 0111) != 0;
  bool library = is_shared_lib(name) || name.ends_with(".dll");
  return executable || library ? 0755 : 0644;
}

DestDir dest_of(Role role) {
  switch (role) {
    case Role::Header:
      return DestDir::Include;
    case Role::Dll:
      return DestDir::Bin;
    case Role::ImportLib:
      return DestDir::ImportLib;
    case Role::SharedLib:
    case Role::StaticLib:
      return DestDir::Lib;
    case Role::License:
    case Role::Unknown:
    case Role::LoaderConfig:
      return DestDir::None;
  }
  return DestDir::None;
}

const char* to_string(Role role) {
  switch (role) {
    case Role::Header:
      return "header";
    case Role::Dll:
      return "dll";
    case Role::ImportLib:
      return "import-lib";
    case Role::SharedLib:
      return "shared-lib";
    case Role::StaticLib:
      return "static-lib";
    case Role::License:
      return "license";
    case Role::Unknown:
      return "unknown";
    case Role::LoaderConfig:
      return "loader-config";
  }
  return "?";
}

}  // namespace cudnn_install
