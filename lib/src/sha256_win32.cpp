// sha256 through Windows' CNG (BCrypt), streamed in 1 MiB blocks read one block ahead.
#include <windows.h>
#include <bcrypt.h>

#include <cstdio>
#include <fstream>
#include <vector>

#include "cudnn_install/integrity.hpp"
#include "read_ahead.hpp"

namespace cudnn_install {
namespace {

// The algorithm and hash handles, closed in every path out.
struct Sha256 {
  BCRYPT_ALG_HANDLE alg = nullptr;
  BCRYPT_HASH_HANDLE hash = nullptr;
  bool ok = false;
  Sha256() {
    ok = BCryptOpenAlgorithmProvider(&alg, BCRYPT_SHA256_ALGORITHM, nullptr, 0) >= 0 &&
         BCryptCreateHash(alg, &hash, nullptr, 0, nullptr, 0, 0) >= 0;
  }
  ~Sha256() {
    if (hash) BCryptDestroyHash(hash);
    if (alg) BCryptCloseAlgorithmProvider(alg, 0);
  }
};

}  // namespace

Result<std::string> sha256_file(const std::filesystem::path& path, const HashProgress& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Usage, "cannot read '" + path.string() + "'", path.string());
  std::error_code ec;
  std::uint64_t total = std::filesystem::file_size(path, ec), done = 0;
  Sha256 sha;
  if (!sha.ok) return fail(ErrorCode::Io, "Windows' BCrypt cannot compute sha256");
  ReadAhead reader(in);
  for (auto chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
    BCryptHashData(sha.hash, reinterpret_cast<PUCHAR>(const_cast<char*>(chunk.data())), static_cast<ULONG>(chunk.size()), 0);
    done += chunk.size();
    if (progress) progress(done, total);
  }
  if (!reader.reached_end()) return fail(ErrorCode::Io, "error while reading '" + path.string() + "'", path.string());
  unsigned char digest[32];
  if (BCryptFinishHash(sha.hash, digest, sizeof digest, 0) < 0) return fail(ErrorCode::Io, "BCrypt failed to finish sha256");
  std::string hex;
  char byte[3];
  for (unsigned char d : digest) {
    std::snprintf(byte, sizeof byte, "%02x", d);
    hex += byte;
  }
  return hex;
}

}  // namespace cudnn_install
