// A resumable, verified download: bytes go to <destination>.part through a running sha256; after a
// dropped connection the transfer goes on from the .part's end (HTTP Range); only bytes whose size
// and sha256 are the expected ones are renamed to the destination.
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "base/read_ahead.hpp"
#include "base/sha256.hpp"
#include "base/try.hpp"
#include "base/util.hpp"
#include "cudnn_install/fetch.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install {
namespace {

namespace fs = std::filesystem;

constexpr int kFailuresWithoutProgress = 5;  // connections in a row that brought no byte
constexpr int kMaxConnections = 200;

fs::path part_of(const fs::path& destination) {
  auto part = destination;
  part += ".part";
  return part;
}

// The part file and the hash of what it holds, restarted together.
struct PartFile {
  fs::path path;
  std::ofstream out;
  std::unique_ptr<Sha256> sha = std::make_unique<Sha256>();
  std::uint64_t bytes = 0;

  Result<void> open(std::ios::openmode mode) {
    out.close();
    out.clear();
    out.open(path, std::ios::binary | mode);
    if (!out) return fail(ErrorCode::Io, "cannot write " + path.string() + ": " + std::strerror(errno), path.string());
    return {};
  }
  Result<void> restart() {
    sha = std::make_unique<Sha256>();
    bytes = 0;
    return open(std::ios::trunc);
  }
  Result<void> append(std::span<const char> data) {
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out)
      return fail(ErrorCode::Io,
                  "cannot write " + path.string() + ": " + std::strerror(errno) +
                      ". Free some space there (or point XDG_CACHE_HOME / LOCALAPPDATA elsewhere) and run the same "
                      "command again: the download resumes.",
                  path.string());
    sha->update(data);
    bytes += data.size();
    return {};
  }
};

// Resumes a .part left by an earlier run: its bytes are hashed first.
Result<void> adopt_existing(PartFile& part, std::uint64_t expected_size) {
  std::error_code ec;
  auto size = fs::file_size(part.path, ec);
  if (ec || size == 0 || (expected_size && size > expected_size)) return part.restart();
  TRY(read_file_ahead(part.path, [&](std::span<const char> chunk) { part.sha->update(chunk); }, {}));
  part.bytes = size;
  return part.open(std::ios::app);
}

// A .part that holds nothing is not kept: the next run starts from zero either way.
void drop_if_empty(PartFile& part) {
  if (part.bytes > 0) return;
  part.out.close();
  std::error_code ec;
  fs::remove(part.path, ec);
}

std::string kept_text(const PartFile& part) {
  if (part.bytes == 0) return "";
  return "; " + std::to_string(part.bytes) + " bytes are kept in " + part.path.string() +
         " and the same command resumes from there";
}

Result<bool> already_there(const DownloadRequest& request) {
  std::error_code ec;
  if (!fs::is_regular_file(request.destination, ec)) return false;
  auto size = fs::file_size(request.destination, ec);
  if (!ec && (!request.size || size == request.size)) {
    TRY_ASSIGN(auto sha, sha256_file(request.destination));
    if (sha == request.sha256) return true;
  }
  fs::remove(request.destination, ec);  // damaged or replaced: downloaded again
  return false;
}

Result<void> check_bytes(PartFile& part, const DownloadRequest& request) {
  auto name = request.destination.filename().string();
  if (request.size && part.bytes != request.size)
    return fail(ErrorCode::IntegrityFailure,
                "the download of " + name + " is truncated: " + std::to_string(part.bytes) + " of " +
                    std::to_string(request.size) + " bytes. Nothing was installed; run the command again.",
                name);
  auto sha = part.sha->finish();
  if (sha != request.sha256)
    return fail(ErrorCode::IntegrityFailure,
                name + " as downloaded from " + request.url + " has sha256 " + sha + ", but " + request.sha256 +
                    " was published for it: the mirror serves other bytes. Nothing was installed; the bytes were "
                    "removed.",
                name);
  return {};
}

}  // namespace

std::string http_failure(int status, const std::string& url) {
  std::string why = status == 404
                        ? " (the mirror does not have this file: is it laid out like NVIDIA's redist directory?)"
                    : status == 403 || status == 401 ? " (access refused)"
                    : status == 407 ? " (the proxy wants a user and password: give them in the proxy variable, "
                                      "https_proxy=http://USER:PASSWORD@HOST:PORT)"
                                    : "";
  return "HTTP " + std::to_string(status) + " for " + url + why;
}

std::unexpected<Error> untrusted_server(const std::string& url, const std::string& detail) {
  return fail(ErrorCode::IntegrityFailure,
              url + ": the server's certificate is not trusted (" + detail +
                  "), so nothing was downloaded from it. For a mirror of your own, give it a certificate from "
                  "an authority this system trusts (Linux: a CA file in /usr/local/share/ca-certificates, then "
                  "update-ca-certificates; Windows: the Trusted Root Certification Authorities store).",
              url);
}

namespace {

// Connects until the .part holds the whole file (or the server says it is complete), resuming
// where the last connection stopped; gives up after a run of connections that brought nothing.
Result<void> receive_into_part(HttpClient& http, const DownloadRequest& request, PartFile& part,
                               const DownloadProgress& progress, Downloaded& result) {
  int failures = 0;
  for (int connection = 1; !(request.size && part.bytes == request.size); ++connection) {
    auto before = part.bytes;
    bool first_chunk = true;
    auto sink = [&](int status, std::span<const char> bytes) -> Result<void> {
      if (first_chunk && status == 200 && part.bytes > 0) TRY(part.restart());  // the server ignored Range
      first_chunk = false;
      TRY(part.append(bytes));
      if (progress) progress(part.bytes, request.size);
      return {};
    };
    auto response = http.get({request.url, part.bytes, "", ""}, sink);
    if (response && response->status == 416 && part.bytes > 0) {
      TRY(part.restart());  // the .part is not a prefix of this file
      continue;
    }
    if (response && (response->status < 200 || response->status >= 300))
      return fail(ErrorCode::Network, http_failure(response->status, request.url), request.url);
    if (response) return {};
    if (response.error().code != ErrorCode::Network) return std::unexpected(response.error());
    failures = part.bytes > before ? 1 : failures + 1;
    if (failures >= kFailuresWithoutProgress || connection >= std::min(request.max_attempts, kMaxConnections)) {
      return fail(ErrorCode::Network,
                  response.error().message + " (gave up after " + std::to_string(connection) + " connections" +
                      kept_text(part) + ")",
                  request.url);
    }
    if (part.bytes > 0) ++result.resumed;
    std::this_thread::sleep_for(std::chrono::milliseconds(200 * failures));
  }
  return {};
}

}  // namespace

Result<Downloaded> download_verified(HttpClient& http, const DownloadRequest& request,
                                     const DownloadProgress& progress) {
  Downloaded result;
  TRY_ASSIGN(bool cached, already_there(request));
  if (cached) {
    result.from_cache = true;
    result.bytes = request.size;
    return result;
  }
  std::error_code ec;
  fs::create_directories(request.destination.parent_path(), ec);
  PartFile part;
  part.path = part_of(request.destination);
  if (!part.sha->ok()) return fail(ErrorCode::Io, "sha256 is not available on this system");
  TRY(adopt_existing(part, request.size));
  if (auto received = receive_into_part(http, request, part, progress, result); !received) {
    drop_if_empty(part);
    return std::unexpected(received.error());
  }
  part.out.close();
  if (auto ok = check_bytes(part, request); !ok) {
    fs::remove(part.path, ec);
    return std::unexpected(ok.error());
  }
  fs::rename(part.path, request.destination, ec);
  if (ec)
    return fail(ErrorCode::Io, "cannot rename " + part.path.string() + " to its final name: " + ec.message(),
                part.path.string());
  result.bytes = part.bytes;
  return result;
}

}  // namespace cudnn_install
