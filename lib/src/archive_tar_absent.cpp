// Builds without libarchive (the Windows build): .tar.xz and .tgz are Linux archives, so they are
// refused with a message that says where they belong instead of being misread.
#include "cudnn_install/archive_reader.hpp"

namespace cudnn_install {
namespace {

class NoTarReader final : public ArchiveReader {
 public:
  Result<Listing> list(const CapturePredicate&, const ReadProgress&) override { return refuse(); }
  Result<void> extract(const ExtractVisitor&) override { return refuse(); }

 private:
  static std::unexpected<Error> refuse() {
    return fail(ErrorCode::CudaMismatch,
                "this build of cudnn-install reads the Windows .zip archives only; a .tar.xz is a Linux archive: "
                "install it with the Linux build, or download the cudnn-windows-x86_64-*-archive.zip");
  }
};

}  // namespace

// NOLINTNEXTLINE(performance-unnecessary-value-param): the signature of the real one, which keeps them
Result<std::unique_ptr<ArchiveReader>> make_tar_reader(std::filesystem::path, std::string) {
  return std::make_unique<NoTarReader>();
}

}  // namespace cudnn_install
