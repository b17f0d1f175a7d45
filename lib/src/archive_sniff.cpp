// What a file given as the archive really is: its first bytes against the container its name
// promises (a zip renamed .tar.xz, an HTML page saved by a browser), and a directory or a path
// with a trailing separator given where a file is wanted.
#include <algorithm>
#include <cctype>
#include <fstream>

#include "cudnn_install/archive.hpp"
#include "cudnn_install/archive_reader.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {
namespace {

struct Magic {
  std::size_t offset;
  std::string_view bytes;
  const char* kind;
};

// Containers first; then what a failed download or a wrong file commonly is.
constexpr Magic kSniffMagics[] = {
    {0, std::string_view("PK\x03\x04", 4), "a zip archive"},
    {0, std::string_view("PK\x05\x06", 4), "a zip archive"},
    {0, std::string_view("\3757zXZ\x00", 6), "an xz-compressed file"},
    {0, std::string_view("\x1F\x8B", 2), "a gzip-compressed file"},
    {0, std::string_view("BZh", 3), "a bzip2-compressed file"},
    {0, std::string_view("7z\xBC\xAF\x27\x1C", 6), "a 7-Zip archive"},
    {0, std::string_view("Rar!\x1A\x07", 6), "a RAR archive"},
    {257, std::string_view("ustar", 5), "an uncompressed tar archive"},
    {0, std::string_view("MZ", 2), "a Windows program or DLL"},
    {0, std::string_view("\177ELF", 4), "a Linux program or library"},
};

bool is_html(std::string_view head) {
  std::string start;
  for (char c : head.substr(0, 64))
    if (!start.empty() || !std::isspace(static_cast<unsigned char>(c)))
      start += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return start.starts_with("<!doctype html") || start.starts_with("<html") || start.starts_with("<?xml");
}

const char* expected_kind(Container c) {
  switch (c) {
    case Container::Zip:
      return "a zip archive";
    case Container::TarXz:
      return "an xz-compressed file";
    case Container::Tgz:
      return "a gzip-compressed file";
  }
  return "";
}

// What the reader of the named container reads: libarchive's tar reader takes xz, gzip and plain tar alike.
bool readable_as(const std::string& kind, Container named) {
  if (named == Container::Zip) return kind == "a zip archive";
  return kind == "an xz-compressed file" || kind == "a gzip-compressed file" || kind == "an uncompressed tar archive";
}

const char* extension_of(const std::string& kind) {
  if (kind == "a zip archive") return ".zip";
  if (kind == "an xz-compressed file") return ".tar.xz";
  if (kind == "a gzip-compressed file") return ".tgz";
  return nullptr;
}

}  // namespace

std::string content_kind(std::string_view head) {
  for (const auto& m : kSniffMagics)
    if (head.size() >= m.offset + m.bytes.size() && head.substr(m.offset, m.bytes.size()) == m.bytes) return m.kind;
  if (is_html(head)) return "a web page (HTML or XML), not an archive: the download saved an error or sign-in page";
  return "";
}

Result<void> check_content_matches(std::string_view head, Container named, const std::string& path) {
  std::string kind = content_kind(head);
  if (kind.empty() || readable_as(kind, named)) return {};  // unknown bytes: the reader says what is wrong
  std::string message = "'" + path + "' is named as " + expected_kind(named) + " but is " + kind;
  if (const char* ext = extension_of(kind))
    message += ": it was renamed; give the archive its real extension (" + std::string(ext) +
               ") or download it again under NVIDIA's name";
  else
    message += ": download the cuDNN archive again";
  return fail(ErrorCode::BadArchive, message, path);
}

Result<void> check_archive_content(const std::filesystem::path& path, Container named) {
  std::ifstream in(path, std::ios::binary);
  std::string head(512, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return check_content_matches(head, named, path.string());
}

Result<std::filesystem::path> archive_argument(const std::filesystem::path& given) {
#ifdef _WIN32
  auto separator = [](char c) { return c == '/' || c == '\\'; };
#else
  auto separator = [](char c) { return c == '/'; };
#endif
  std::string text = given.string();
  while (text.size() > 1 && separator(text.back())) text.pop_back();
  std::filesystem::path path = utf8_path(text);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return fail(ErrorCode::Usage,
                "'" + given.string() +
                    "' is a directory: give the cuDNN archive itself (the .zip or .tar.xz file you downloaded), not a "
                    "folder extracted from it",
                given.string());
  return path;
}

}  // namespace cudnn_install
