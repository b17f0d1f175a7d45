// sha256 through OpenSSL's EVP interface, streamed in 1 MiB blocks read one block ahead.
#include <cstdio>
#include <fstream>
#include <memory>

#include "cudnn_install/integrity.hpp"
#include "lazy_libs.hpp"
#include "read_ahead.hpp"

namespace cudnn_install {

Result<std::string> sha256_file(const std::filesystem::path& path, const HashProgress& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::Usage, "cannot read '" + path.string() + "'", path.string());
  std::error_code ec;
  std::uint64_t total = std::filesystem::file_size(path, ec), done = 0;
  auto crypto = libcrypto();
  if (!crypto) return std::unexpected(crypto.error());
  const LibCrypto& api = **crypto;
  std::unique_ptr<EVP_MD_CTX, decltype(api.EVP_MD_CTX_free)> ctx(api.EVP_MD_CTX_new(), api.EVP_MD_CTX_free);
  if (!ctx || api.EVP_DigestInit_ex(ctx.get(), api.EVP_sha256(), nullptr) != 1)
    return fail(ErrorCode::Io, "OpenSSL cannot compute sha256");
  ReadAhead reader(in);
  for (auto chunk = reader.next(); !chunk.empty(); chunk = reader.next()) {
    api.EVP_DigestUpdate(ctx.get(), chunk.data(), chunk.size());
    done += chunk.size();
    if (progress) progress(done, total);
  }
  if (!reader.reached_end()) return fail(ErrorCode::Io, "error while reading '" + path.string() + "'", path.string());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  api.EVP_DigestFinal_ex(ctx.get(), digest, &len);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    hex += byte;
  }
  return hex;
}

}  // namespace cudnn_install
