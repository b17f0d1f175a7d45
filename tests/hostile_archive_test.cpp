// Issue 18, the archive side, end to end: the real binary on archives that are hostile in ways the
// listing's safety rules do not refuse (scripts/make-test-archives.py writes them under tricky/).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

nlohmann::json expectations() {
  std::ifstream in(std::string(CORPUS_DIR) + "/expectations.json");
  return nlohmann::json::parse(in);
}

std::vector<nlohmann::json> tricky(const std::string& case_name) {
  std::vector<nlohmann::json> found;
  nlohmann::json all = expectations();  // (a temporary in the range-for would die before the loop)
  for (const auto& t : all["tricky"])
    if (t["case"] == case_name) found.push_back(t);
  return found;
}

fs::path corpus(const std::string& rel) { return fs::path(CORPUS_DIR) / rel; }

std::uint32_t mode_of(const fs::path& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 ? st.st_mode & 07777 : 0xFFFFFFFF;
}

// Every regular file under root (the state directory left out): none may be setuid, setgid,
// sticky, or writable by group or others.
std::string unsafe_modes_under(const fs::path& root) {
  std::string found;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".cudnn-install") {
      it.disable_recursion_pending();
      continue;
    }
    if (fs::is_regular_file(fs::symlink_status(it->path())) && (mode_of(it->path()) & 07022))
      found += it->path().string() + "\n";
  }
  return found;
}

void make_toolkit_for(const fs::path& archive, const fs::path& root) {
  if (archive.extension() == ".zip")
    make_windows_toolkit(root, "13.0.0", true);
  else
    make_linux_toolkit(root, 13000);
}

void expect_modes(const nlohmann::json& t, const fs::path& root, const std::string& when) {
  for (const auto& [target, mode] : t["modes"].items())
    EXPECT_EQ(mode_of(root / target), mode.get<std::uint32_t>())
        << when << ": " << t["file"] << " " << target << " is " << std::oct << mode_of(root / target);
  EXPECT_EQ(unsafe_modes_under(root), "") << when;
}

}  // namespace

// setuid/setgid/sticky and group/world-writable entries of a tar.xz and a zip: every installed
// file is 0644, or 0755 for executables and shared libraries. The tar.xz is installed twice: the
// first time its files come from the spool, the second (after --rollback) the toolkit remembers
// the archive and stages from the archive itself (the memo path).
TEST(HostileArchive, ModesOfTheArchiveAreNeverInstalled) {
  auto cases = tricky("modes");
  ASSERT_EQ(cases.size(), 2u);
  for (const auto& t : cases) {
    TempDir dir;
    fs::path root = dir.path() / "cuda", archive = corpus(t["file"].get<std::string>());
    make_toolkit_for(archive, root);
    std::string install = cli() + " --yes --no-verify --cuda-root " + root.string() + " " + archive_args(archive), out;
    ASSERT_EQ(run_command(install, &out), 0) << out;
    expect_modes(t, root, "first install");
    ASSERT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root.string(), &out), 0) << out;
    ASSERT_EQ(run_command(install, &out), 0) << out;
    EXPECT_NE(out.find("hashed and listed when this toolkit got it"), std::string::npos) << out;
    expect_modes(t, root, "install from the remembered listing");
  }
}

// Issue 18, class 9: an archive path that is a FIFO, a directory or a symlink to a device is
// refused at once (the sha256 used to wait forever on the FIFO, or read /dev/zero forever), by a
// real install and by --dry-run. `timeout` turns a hang into a failure, not a stuck test run.
TEST(HostileArchive, OnlyRegularFilesAreReadAsArchives) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_linux_toolkit(root, 13000);
  const std::string name = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  struct Case {
    const char* what;  // also the name of the directory the archive path is made in
    std::function<void(const fs::path&)> make;
    const char* says;
    const char* advice;
  } cases[] = {
      {"fifo", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }, "is a FIFO",
       "only from regular files"},
      {"symlink-to-dev-zero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }, "character device",
       "only from regular files"},
      // Issue 19: a directory is most likely an extracted archive.
      {"directory", [](const fs::path& p) { fs::create_directories(p); }, "is a directory",
       "give the cuDNN archive itself (the .zip or .tar.xz file you downloaded), not a folder extracted from it"},
  };
  auto before = snapshot(root);
  for (const auto& c : cases) {
    fs::path where = dir.path() / c.what;
    fs::create_directories(where);
    c.make(where / name);
    for (const char* mode : {"--dry-run", "--yes --no-verify"}) {
      std::string out;
      int rc = run_command("timeout 120 " + cli() + " " + mode + " --cuda-root " + root.string() + " " +
                               (where / name).string() + " </dev/null",
                           &out);
      EXPECT_EQ(rc, 1) << c.what << " " << mode << ": " << out;
      EXPECT_NE(out.find(c.says), std::string::npos) << c.what << " " << mode << ": " << out;
      EXPECT_NE(out.find(c.advice), std::string::npos) << c.what << " " << mode << ": " << out;
    }
  }
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

// Issue 18: --manifest is read as carefully as the archive: a FIFO, a symlink to /dev/zero or a
// directory is refused before it is read (a plain read used to wait for ever on the FIFO), and so
// is a file far larger than any manifest; each says what the file is and that it is the manifest.
TEST(HostileArchive, OnlyRegularFilesOfAManifestsSizeAreReadAsManifests) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_linux_toolkit(root, 13000);
  fs::path archive = corpus("good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz");
  struct Case {
    const char* what;
    std::function<void(const fs::path&)> make;
    const char* says;
  } cases[] = {
      {"fifo", [](const fs::path& p) { ASSERT_EQ(::mkfifo(p.c_str(), 0644), 0); }, "is a FIFO"},
      {"symlink-to-dev-zero", [](const fs::path& p) { fs::create_symlink("/dev/zero", p); }, "character device"},
      {"directory", [](const fs::path& p) { fs::create_directories(p); }, "is a directory"},
      {"huge", [](const fs::path& p) { std::ofstream(p).close(), fs::resize_file(p, 64u << 20); },
       "NVIDIA's redistrib_*.json manifests are far smaller"},
      {"missing", [](const fs::path&) {}, "does not exist: check the manifest's path"},
  };
  auto before = snapshot(root);
  for (const auto& c : cases) {
    fs::path manifest = dir.path() / c.what / "redistrib_9.19.0.json";
    fs::create_directories(manifest.parent_path());
    c.make(manifest);
    for (const char* mode : {"--dry-run", "--yes --no-verify"}) {
      std::string out;
      int rc = run_command("timeout 120 " + cli() + " " + mode + " --cuda-root " + root.string() + " --manifest " +
                               manifest.string() + " " + archive.string() + " </dev/null",
                           &out);
      EXPECT_EQ(rc, 1) << c.what << " " << mode << ": " << out;
      EXPECT_NE(out.find(c.says), std::string::npos) << c.what << " " << mode << ": " << out;
      EXPECT_NE(out.find("manifest"), std::string::npos) << c.what << " " << mode << ": " << out;
    }
  }
  EXPECT_EQ(diff(before, snapshot(root)), "");
}

// Issue 18, class 1: a file name longer than the toolkit's filesystem holds (NAME_MAX) is refused
// by the plan, in --dry-run and in a real install, whether its directory exists (lstat used to
// fail with ENAMETOOLONG: exit 4) or is still to be made (the rename failed half-way, and the
// rollback wedged every later run). Nothing is written; status runs afterwards.
TEST(HostileArchive, ANameTheFilesystemCannotHoldIsRefusedByThePlan) {
  auto cases = tricky("long-name");
  ASSERT_EQ(cases.size(), 1u);
  fs::path archive = corpus(cases[0]["file"].get<std::string>());
  for (bool lib_dir_exists : {true, false}) {
    TempDir dir;
    fs::path root = dir.path() / "cuda";
    if (lib_dir_exists) {
      make_linux_toolkit(root, 13000);
    } else {
      write_file(root / "include/cuda.h", "#define CUDA_VERSION 13000\n");
    }
    auto before = snapshot(root);
    for (const char* mode : {"--dry-run", "--yes --no-verify"}) {
      std::string out;
      int rc = run_command(cli() + " " + mode + " --cuda-root " + root.string() + " " + archive_args(archive), &out);
      EXPECT_EQ(rc, 2) << mode << ": " << out;
      EXPECT_NE(out.find(cases[0]["refused"].get<std::string>()), std::string::npos) << mode << ": " << out;
      EXPECT_EQ(diff(before, snapshot(root)), "") << mode;
    }
    std::string out;
    EXPECT_EQ(run_command(cli() + " status --cuda-root " + root.string(), &out), 0) << out;
  }
}

// Issue 18, class 6: an archive carrying CUDA's own files (lib/libcudart.so.13, include/cuda.h, a
// cuDNN-named link to the runtime) installs its cuDNN files only; the others are listed as not
// installed, and the toolkit's own files of those names stay exactly as they were.
TEST(HostileArchive, OnlyCudnnsOwnFilesAreInstalledTheRestIsListed) {
  auto cases = tricky("foreign");
  ASSERT_EQ(cases.size(), 2u);
  for (const auto& t : cases) {
    TempDir dir;
    fs::path root = dir.path() / "cuda", archive = corpus(t["file"].get<std::string>());
    make_toolkit_for(archive, root);
    auto before = snapshot(root);
    std::string out;
    ASSERT_EQ(
        run_command(cli() + " --yes --no-verify --cuda-root " + root.string() + " " + archive_args(archive), &out), 0)
        << out;
    auto after = snapshot(root);
    for (const auto& rel : t["not_installed"]) {
      std::string r = rel.get<std::string>();
      EXPECT_NE(out.find("not installed  " + r), std::string::npos) << r << "\n" << out;
      if (before.contains(r))
        EXPECT_TRUE(after.contains(r) && after.at(r) == before.at(r)) << r << " was changed";
      else
        EXPECT_FALSE(after.contains(r)) << r << " was installed";
    }
    for (const auto& rel : t["installed"]) EXPECT_TRUE(after.contains(rel.get<std::string>())) << rel;
    ASSERT_EQ(run_command(cli() + " --rollback --yes --cuda-root " + root.string(), &out), 0) << out;
    EXPECT_EQ(diff(before, snapshot(root)), "");
  }
}
