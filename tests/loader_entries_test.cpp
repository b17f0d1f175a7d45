// Issue 18, class 7: one loader entry per toolkit path, replaced through a file in the same
// directory. Two toolkits of one CUDA version never share (or roll back) each other's entry, and
// an /etc on another filesystem than the toolkit works. The real binary on sandbox trees.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

std::string kArchiveArgs() {
  return archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
}

int run_in(const fs::path& etc, const std::string& args, std::string* out) {
  return run_command(
      "CUDNN_INSTALL_ETC=" + etc.string() + " CUDNN_INSTALL_LDCONFIG=true " + cli() + " " + args + " </dev/null 2>&1",
      out);
}

std::vector<fs::path> entries(const fs::path& etc) {
  std::vector<fs::path> out;
  if (fs::exists(etc / "ld.so.conf.d"))
    for (const auto& e : fs::directory_iterator(etc / "ld.so.conf.d")) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(LoaderEntries, TwoToolkitsOfOneVersionEachHaveTheirOwnAndRollbackLeavesTheOther) {
  TempDir dir;
  fs::path a = dir.path() / "a/cuda-13.0", b = dir.path() / "b/cuda-13.0", etc = dir.path() / "etc";
  make_tree_with_old_cudnn(a);
  make_tree_with_old_cudnn(b);
  write_file(etc / "ld.so.conf", "");
  fs::create_directories(etc / "ld.so.conf.d");
  std::string out;
  for (const auto& root : {a, b})
    ASSERT_EQ(
        run_in(etc, "--yes --no-verify --loader-config=system --cuda-root " + root.string() + " " + kArchiveArgs(),
               &out),
        0)
        << out;
  auto both = entries(etc);
  ASSERT_EQ(both.size(), 2u);
  std::set<std::string> contents{read_file(both[0]), read_file(both[1])};
  EXPECT_EQ(contents, (std::set<std::string>{fs::canonical(a / "lib").string() + "\n",
                                             fs::canonical(b / "lib").string() + "\n"}));
  ASSERT_EQ(run_in(etc, "--rollback --yes --cuda-root " + a.string(), &out), 0) << out;
  auto left = entries(etc);
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(read_file(left[0]), fs::canonical(b / "lib").string() + "\n");
}

TEST(LoaderEntries, AnEntryOnAnotherFilesystemThanTheToolkitIsReplacedAndRestored) {
  char shm[] = "/dev/shm/cudnn-install-etc-XXXXXX";
  if (!fs::exists("/dev/shm") || !mkdtemp(shm)) GTEST_SKIP() << "no /dev/shm";
  fs::path etc = shm;
  struct Cleanup {
    fs::path p;
    ~Cleanup() { fs::remove_all(p); }
  } cleanup{etc};
  TempDir dir;
  fs::path root = dir.path() / "cuda-13.0";
  make_tree_with_old_cudnn(root);
  struct stat s1, s2;
  if (stat(etc.c_str(), &s1) != 0 || stat(root.c_str(), &s2) != 0 || s1.st_dev == s2.st_dev)
    GTEST_SKIP() << "/dev/shm is on the toolkit's filesystem";
  write_file(etc / "ld.so.conf", "");
  fs::create_directories(etc / "ld.so.conf.d");
  std::string out,
      install = "--yes --no-verify --loader-config=system --cuda-root " + root.string() + " " + kArchiveArgs();
  ASSERT_EQ(run_in(etc, install, &out), 0) << out;
  ASSERT_EQ(entries(etc).size(), 1u);
  fs::path conf = entries(etc)[0];
  write_file(conf, "/somewhere/else\n");  // an entry of this toolkit that is out of date: replaced
  auto before = snapshot(etc, "");
  ASSERT_EQ(run_in(etc, install, &out), 0) << out;  // before: EXDEV moving the old entry into the toolkit
  EXPECT_EQ(read_file(conf), fs::canonical(root / "lib").string() + "\n");
  ASSERT_EQ(run_in(etc, "--rollback --yes --cuda-root " + root.string(), &out), 0) << out;
  EXPECT_EQ(diff(before, snapshot(etc, "")), "");  // the old entry back, nothing left beside it
}
