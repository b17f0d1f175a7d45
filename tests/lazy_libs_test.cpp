// libzip, libarchive and libcrypto are loaded when first needed (lib/src/lazy_libs.hpp): what a
// missing library or function says, and which commands load none of them.
#include <gtest/gtest.h>

#include "shared_library.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;

namespace {

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// What the dynamic loader reports loading while the command runs (LD_DEBUG=files).
std::string libraries_loaded_by(const std::string& command) {
  std::string out;
  run_command("LD_DEBUG=files " + command, &out);
  return out;
}

bool loads_an_archive_library(const std::string& loader_log) {
  return mentions(loader_log, "file=libzip.so") || mentions(loader_log, "file=libarchive.so") ||
         mentions(loader_log, "file=libcrypto.so");
}

}  // namespace

TEST(LazyLibs, AMissingLibraryNamesItselfWhyItIsNeededAndThePackage) {
  auto handle = open_shared_library({"libcudnn-install-absent.so.7", "libabsent7", "read zip archives"});
  ASSERT_FALSE(handle);
  EXPECT_EQ(handle.error().code, ErrorCode::Io);
  EXPECT_TRUE(mentions(handle.error().message, "cannot load libcudnn-install-absent.so.7")) << handle.error().message;
  EXPECT_TRUE(mentions(handle.error().message, "needs to read zip archives")) << handle.error().message;
  EXPECT_TRUE(mentions(handle.error().message, "sudo apt-get install libabsent7")) << handle.error().message;
}

TEST(LazyLibs, WithoutAKnownPackageItPointsAtThePackageManager) {
  auto handle = open_shared_library({"libcudnn-install-absent.so.7", "", "read zip archives"});
  ASSERT_FALSE(handle);
  EXPECT_TRUE(mentions(handle.error().message, "the package that ships libcudnn-install-absent.so.7"))
      << handle.error().message;
  EXPECT_FALSE(mentions(handle.error().message, "apt-get")) << handle.error().message;
}

TEST(LazyLibs, FindsAFunctionAndNamesOneThatIsMissing) {
  SharedLibrary zlib{"libz.so.1", "zlib1g", "compute CRC-32s"};
  auto handle = open_shared_library(zlib);
  ASSERT_TRUE(handle) << handle.error().message;
  EXPECT_TRUE(find_function(*handle, zlib, "crc32"));
  auto missing = find_function(*handle, zlib, "crc32_that_no_zlib_has");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(mentions(missing.error().message, "libz.so.1 has no function crc32_that_no_zlib_has"))
      << missing.error().message;
  EXPECT_TRUE(mentions(missing.error().message, "sudo apt-get install zlib1g")) << missing.error().message;
}

// The point of loading on demand: a reinstall answered from memory, a rollback and --version
// start without libzip, libarchive and libcrypto (and the libraries those bring).
TEST(LazyLibs, OnlyCommandsThatReadAnArchiveLoadTheArchiveLibraries) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  std::string tool =
      std::string(CLI_PATH) + " --yes --no-verify --loader-config=none --cuda-root " + dir.path().string();
  std::string archive = archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));

  std::string first = libraries_loaded_by(tool + " " + archive);
  EXPECT_TRUE(mentions(first, "file=libarchive.so")) << first;  // the check can see a load
  EXPECT_TRUE(mentions(first, "file=libcrypto.so")) << first;
  std::string again = libraries_loaded_by(tool + " " + archive);
  EXPECT_TRUE(mentions(again, "nothing to do")) << again;
  EXPECT_FALSE(loads_an_archive_library(again)) << again;
  std::string rollback = libraries_loaded_by(tool + " --rollback");
  EXPECT_TRUE(mentions(rollback, "rolled back")) << rollback;
  EXPECT_FALSE(loads_an_archive_library(rollback)) << rollback;
  EXPECT_FALSE(loads_an_archive_library(libraries_loaded_by(std::string(CLI_PATH) + " --version")));
}
