// sha256 through OpenSSL's EVP interface, the file read one 1 MiB chunk ahead of the hashing.
#include <openssl/evp.h>

#include <memory>

#include "base/read_ahead.hpp"
#include "base/util.hpp"
#include "cudnn_install/integrity.hpp"

namespace cudnn_install {

Result<std::string> sha256_file(const std::filesystem::path& path, const HashProgress& progress) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return fail(ErrorCode::Io, "OpenSSL cannot compute sha256");
  auto read = read_file_ahead(
      path, [&](std::span<const char> chunk) { EVP_DigestUpdate(ctx.get(), chunk.data(), chunk.size()); }, progress);
  if (!read) return std::unexpected(read.error());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  return util::to_hex(std::string_view(reinterpret_cast<const char*>(digest), len));
}

}  // namespace cudnn_install
