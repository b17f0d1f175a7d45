// sha256 through Windows' CNG (BCrypt), the file read one 1 MiB chunk ahead of the hashing.
#include <windows.h>

#include <bcrypt.h>

#include "base/read_ahead.hpp"
#include "base/sha256.hpp"
#include "base/util.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install {

// The algorithm and hash handles, closed in every path out.
struct Sha256::State {
  BCRYPT_ALG_HANDLE alg = nullptr;
  BCRYPT_HASH_HANDLE hash = nullptr;
  bool ok = false;
  State() {
    ok = BCryptOpenAlgorithmProvider(&alg, BCRYPT_SHA256_ALGORITHM, nullptr, 0) >= 0 &&
         BCryptCreateHash(alg, &hash, nullptr, 0, nullptr, 0, 0) >= 0;
  }
  ~State() {
    if (hash) BCryptDestroyHash(hash);
    if (alg) BCryptCloseAlgorithmProvider(alg, 0);
  }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {}
Sha256::~Sha256() = default;
bool Sha256::ok() const { return state_->ok; }

void Sha256::update(std::span<const char> bytes) {
  BCryptHashData(state_->hash, reinterpret_cast<PUCHAR>(const_cast<char*>(bytes.data())),
                 static_cast<ULONG>(bytes.size()), 0);
}

std::string Sha256::finish() {
  unsigned char digest[32] = {};
  if (BCryptFinishHash(state_->hash, digest, sizeof digest, 0) < 0) return {};
  return util::to_hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

Result<std::string> sha256_file(const std::filesystem::path& path, const HashProgress& progress) {
  Sha256 sha;
  if (!sha.ok()) return fail(ErrorCode::Io, "Windows' BCrypt cannot compute sha256");
  auto read = read_file_ahead(
      path, [&](std::span<const char> chunk) { sha.update(chunk); }, progress);
  if (!read) return std::unexpected(read.error());
  auto digest = sha.finish();
  if (digest.empty()) return fail(ErrorCode::Io, "BCrypt failed to finish sha256");
  return digest;
}

}  // namespace cudnn_install
