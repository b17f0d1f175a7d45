// Incremental sha256 (OpenSSL's EVP on Linux, BCrypt on Windows): a download is hashed while its
// bytes arrive, so that the archive is never read again only to be checked.
#pragma once
#include <memory>
#include <span>
#include <string>

namespace cudnn_install {

class Sha256 {
 public:
  Sha256();  // check ok(): the platform's provider may be missing
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  bool ok() const;
  void update(std::span<const char> bytes);
  // Lower-case hex of everything given to update(); call once.
  std::string finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cudnn_install
