// sha256 through Windows' CNG (BCrypt), the file read one 1 MiB chunk ahead of the hashing.
#include <windows.h>

#include <bcrypt.h>

#include "base/read_ahead.hpp"
#include "base/util.hpp"
#include "cudnn_install/integrity.hpp"

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
  Sha256 sha;
  if (!sha.ok) return fail(ErrorCode::Io, "Windows' BCrypt cannot compute sha256");
  auto read = read_file_ahead(
      path,
      [&](std::span<const char> chunk) {
        BCryptHashData(sha.hash, reinterpret_cast<PUCHAR>(const_cast<char*>(chunk.data())),
                       static_cast<ULONG>(chunk.size()), 0);
      },
      progress);
  if (!read) return std::unexpected(read.error());
  unsigned char digest[32];
  if (BCryptFinishHash(sha.hash, digest, sizeof digest, 0) < 0)
    return fail(ErrorCode::Io, "BCrypt failed to finish sha256");
  return util::to_hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

}  // namespace cudnn_install
