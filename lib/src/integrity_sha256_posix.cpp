// sha256 through OpenSSL's EVP interface, the file read one 1 MiB chunk ahead of the hashing.
#include <openssl/evp.h>

#include <memory>

#include "base/read_ahead.hpp"
#include "base/sha256.hpp"
#include "base/util.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install {

struct Sha256::State {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), EVP_MD_CTX_free};
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {}
Sha256::~Sha256() = default;
bool Sha256::ok() const { return state_->ok; }
void Sha256::update(std::span<const char> bytes) { EVP_DigestUpdate(state_->ctx.get(), bytes.data(), bytes.size()); }

std::string Sha256::finish() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(state_->ctx.get(), digest, &len);
  return util::to_hex(std::string_view(reinterpret_cast<const char*>(digest), len));
}

Result<std::string> sha256_file(const std::filesystem::path& path, const HashProgress& progress) {
  Sha256 sha;
  if (!sha.ok()) return fail(ErrorCode::Io, "OpenSSL cannot compute sha256");
  auto read = read_file_ahead(
      path, [&](std::span<const char> chunk) { sha.update(chunk); }, progress);
  if (!read) return std::unexpected(read.error());
  return sha.finish();
}

}  // namespace cudnn_install
