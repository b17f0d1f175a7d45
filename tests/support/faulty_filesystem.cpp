#include "support/faulty_filesystem.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace fs = std::filesystem;

namespace cudnn_install::test {
namespace {

class FaultyOutputFile final : public OutputFile {
 public:
  FaultyOutputFile(std::unique_ptr<OutputFile> real, FaultyFileSystem& owner, fs::path path)
      : real_(std::move(real)), owner_(owner), path_(std::move(path)) {}
  Result<void> write(std::span<const char> bytes) override {
    if (auto r = owner_.tick("write", path_); !r) return r;
    return real_->write(bytes);
  }
  Result<void> sync_and_close() override {
    if (auto r = owner_.tick("sync_and_close", path_); !r) return r;
    return real_->sync_and_close();
  }

 private:
  std::unique_ptr<OutputFile> real_;
  FaultyFileSystem& owner_;
  fs::path path_;
};

std::unexpected<Error> errno_error(const char* op, const fs::path& path, int err) {
  return fail(ErrorCode::Io, std::string("injected ") + op + " '" + path.string() + "': " + std::strerror(err),
              path.string());
}

}  // namespace

Result<std::optional<FileStat>> FaultyFileSystem::stat(const fs::path& path) {
  if (errno_fault && errno_fault->op == "lstat" && errno_fault->path == path)
    return lstat_says_absent(errno_fault->err) ? Result<std::optional<FileStat>>(std::nullopt)
                                               : errno_error("lstat", path, errno_fault->err);
  return real_.stat(path);
}

Result<void> FaultyFileSystem::tick(const char* op, const fs::path& path) {
  std::lock_guard lock(mutex_);
  ++ops_;
  if (before_op) before_op(op, path);
  bool must_fail = fail_at_ > 0 && (mode_ == Mode::Crash ? ops_ >= fail_at_ : ops_ == fail_at_);
  if (!must_fail) return {};
  fired_ = true;
  return fail(
      ErrorCode::Io,
      std::string("injected fault in ") + op + " '" + path.string() + "' (operation " + std::to_string(ops_) + ")",
      path.string());
}

Result<std::unique_ptr<OutputFile>> FaultyFileSystem::create_new(const fs::path& path, std::uint32_t mode) {
  if (auto r = tick("create_new", path); !r) return std::unexpected(r.error());
  auto file = real_.create_new(path, mode);
  if (!file) return file;
  return std::unique_ptr<OutputFile>(std::make_unique<FaultyOutputFile>(std::move(*file), *this, path));
}

Result<void> FaultyFileSystem::make_symlink(const std::string& target, const fs::path& link) {
  if (auto r = tick("make_symlink", link); !r) return r;
  return real_.make_symlink(target, link);
}

Result<void> FaultyFileSystem::rename(const fs::path& from, const fs::path& to, RenameMode mode) {
  if (errno_fault && errno_fault->op == "rename" && (errno_fault->path == from || errno_fault->path == to))
    return errno_error("rename", from, errno_fault->err);
  if (auto r = tick("rename", from); !r) return r;
  return real_.rename(from, to, mode);
}

Result<void> FaultyFileSystem::remove(const fs::path& path) {
  if (errno_fault && errno_fault->op == "remove" && errno_fault->path == path)
    return errno_error("remove", path, errno_fault->err);
  if (auto r = tick("remove", path); !r) return r;
  return real_.remove(path);
}

Result<void> FaultyFileSystem::make_dir(const fs::path& path) {
  if (auto r = tick("make_dir", path); !r) return r;
  return real_.make_dir(path);
}

Result<void> FaultyFileSystem::sync_dir(const fs::path& path) {
  if (auto r = tick("sync_dir", path); !r) return r;
  return real_.sync_dir(path);
}

Result<void> FaultyFileSystem::append_durable(const fs::path& path, std::string_view bytes) {
  if (auto r = tick("append_durable", path); !r) return r;
  return real_.append_durable(path, bytes);
}

std::vector<int> operations_to_try(int total, std::initializer_list<int> always) {
  const char* text = std::getenv("CUDNN_INSTALL_TEST_OPERATION_STRIDE");
  int stride = text ? std::max(1, std::atoi(text)) : 1;
  std::vector<int> out;
  // One of each block of `stride` operations, a different position in each block, so that a
  // test choosing by n % k (the kind of interruption) still gets every kind.
  for (int n = 1; n <= total; ++n)
    if ((n - 1) % stride == ((n - 1) / stride) % stride || n == total ||
        std::find(always.begin(), always.end(), n) != always.end())
      out.push_back(n);
  return out;
}

}  // namespace cudnn_install::test
