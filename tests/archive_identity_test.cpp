// Which NVIDIA archive a file is (issue 19): by its name, by its sha256 (the known-archives table, a
// manifest), by its top folder; refused when none tells. Then the real binary installs renamed copies.
#include <gtest/gtest.h>

#include "cudnn_install/archive_identity.hpp"
#include "cudnn_install/install.hpp"
#include "cudnn_install/toolkit.hpp"
#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

const char* const kLinux919 = "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
const char* const kWindows919 = "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip";

fs::path identity_corpus(const std::string& name) { return fs::path(CORPUS_DIR) / "good" / name; }
fs::path corpus_manifest_file() { return identity_corpus("redistrib_local.json"); }

// A copy of a corpus archive under another name, in a directory with spaces.
fs::path renamed_copy(const TempDir& dir, const std::string& original, const std::string& new_name) {
  fs::path to = dir.path() / "my downloads" / new_name;
  fs::create_directories(to.parent_path());
  fs::copy_file(identity_corpus(original), to);
  return to;
}

std::string sh_quoted(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST(ArchiveIdentity, NvidiasNameIsEnoughAndNothingIsRead) {
  auto id = identify_archive(identity_corpus(kLinux919), std::nullopt);
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(id->by, IdentifiedBy::FileName);
  EXPECT_EQ(id->name.file_name, kLinux919);
  EXPECT_TRUE(id->sha256.empty());
  EXPECT_TRUE(id->how.empty());
}

TEST(ArchiveIdentity, AKnownSha256GivesTheTablesName) {
  for (std::size_t i : {std::size_t{0}, known_archives().size() / 2, known_archives().size() - 1}) {
    const KnownArchive& k = known_archives()[i];
    std::string source;
    auto name = name_by_sha256(k.sha256, std::nullopt, "", &source);
    ASSERT_TRUE(name) << k.file_name;
    EXPECT_EQ(name->file_name, k.file_name);
    EXPECT_EQ(name->cuda.text, k.cuda);
    EXPECT_EQ(source, "the table of known cuDNN archives");
  }
  EXPECT_FALSE(name_by_sha256(std::string(64, '0'), std::nullopt, ""));
  EXPECT_FALSE(name_by_sha256("", std::nullopt, ""));
}

TEST(ArchiveIdentity, AManifestsSha256GivesItsName) {
  TempDir dir;
  fs::path file = renamed_copy(dir, kLinux919, "cudnn-linux-x86_64-9.19.0.56_cuda13-archive (1).tar.xz");
  auto id = identify_archive(file, corpus_manifest_file());
  ASSERT_TRUE(id) << id.error().message;
  EXPECT_EQ(id->by, IdentifiedBy::Sha256);
  EXPECT_EQ(id->name.file_name, kLinux919);
  EXPECT_EQ(id->name.cuda.major, 13);
  EXPECT_EQ(id->sha256.size(), 64u);
  EXPECT_EQ(id->how, std::string("recognised by its sha256 as ") + kLinux919 + " (manifest redistrib_local.json)");
}

TEST(ArchiveIdentity, AnUnknownSha256LeavesTheTopFolder) {
  TempDir dir;
  for (std::string renamed : {"cudnn.zip", "download"}) {  // the second one's container from its bytes
    fs::path file = renamed_copy(dir, kWindows919, renamed);
    auto id = identify_archive(file, std::nullopt);
    ASSERT_TRUE(id) << id.error().message;
    EXPECT_EQ(id->by, IdentifiedBy::Content);
    EXPECT_EQ(id->name.file_name, kWindows919);
    EXPECT_EQ(id->name.os, TargetOs::Windows);
    EXPECT_EQ(id->name.cuda.major, 13);
    EXPECT_EQ(id->name.version.to_string(), "9.19.0.56");
    EXPECT_NE(id->how.find("recognised by its top folder as " + std::string(kWindows919)), std::string::npos);
  }
}

TEST(ArchiveIdentity, AnArchiveThatCannotTellIsRefused) {
  TempDir dir;
  // Up to cuDNN 8.2 the top folder is "cuda": no version, platform or CUDA in it.
  auto legacy = identify_archive(renamed_copy(dir, "cudnn-11.4-windows-x64-v8.2.2.26.zip", "cudnn.zip"), std::nullopt);
  ASSERT_FALSE(legacy);
  EXPECT_EQ(legacy.error().code, ErrorCode::BadName);
  EXPECT_NE(legacy.error().message.find("top folder is 'cuda'"), std::string::npos) << legacy.error().message;
  EXPECT_NE(legacy.error().message.find("--manifest"), std::string::npos) << legacy.error().message;
  EXPECT_NE(legacy.error().message.find("restore the name NVIDIA gave"), std::string::npos);
  write_file(dir.path() / "notes.txt", "not an archive\n");
  auto text = identify_archive(dir.path() / "notes.txt", std::nullopt);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code, ErrorCode::BadName);
  EXPECT_NE(text.error().message.find("it is not a zip, tar.xz or tgz file"), std::string::npos)
      << text.error().message;
  write_file(dir.path() / "broken.zip", "x");
  auto broken = identify_archive(dir.path() / "broken.zip", std::nullopt);
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().code, ErrorCode::BadName);
  EXPECT_NE(broken.error().message.find("is not a cuDNN archive name"), std::string::npos) << broken.error().message;
  EXPECT_NE(broken.error().message.find("it cannot be read"), std::string::npos) << broken.error().message;
}

TEST(ArchiveIdentity, TopFolderNames) {
  EXPECT_EQ(name_from_top_folder("cudnn-linux-sbsa-8.9.7.29_cuda12-archive", "x").value().file_name,
            "cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz");
  EXPECT_EQ(name_from_top_folder("cudnn-windows-x86_64-8.3.2.44_cuda11.5-archive", "x").value().cuda.text, "11.5");
  for (std::string top : {"", "cuda", "cudnn", "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"})
    EXPECT_FALSE(name_from_top_folder(top, "x")) << top;
}

// Identified by content, a renamed file is checked as NVIDIA's archive of that name: the corpus's
// bytes are not NVIDIA's, so the table refuses it, as it refuses the file under its own name.
TEST(ArchiveIdentity, AnArchiveIdentifiedByContentIsStillCheckedByTheTable) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_linux_toolkit(root, 13000);
  ToolkitSearch search;
  auto toolkit = probe_toolkit(root, "--cuda-root", search);
  ASSERT_TRUE(toolkit) << toolkit.error().message;
  auto fsys = make_real_filesystem();
  InstallServices services{*fsys};
  InstallRequest request;
  request.archive = renamed_copy(dir, kLinux919, "cudnn.tar.xz");
  request.spooling = Spooling::None;
  auto planned = plan_install(request, *toolkit, services);
  ASSERT_FALSE(planned);
  EXPECT_EQ(planned.error().code, ErrorCode::IntegrityFailure) << planned.error().message;
  request.manifest = corpus_manifest_file();  // the manifest vouches for these bytes: recognised by sha256
  planned = plan_install(request, *toolkit, services);
  ASSERT_TRUE(planned) << planned.error().message;
  EXPECT_EQ(planned->inspected.integrity.verdict, IntegrityCheck::Verdict::Match);
  EXPECT_EQ(planned->plan.archive_name, kLinux919);
  EXPECT_NE(planned->inspected.archive.identified.find("recognised by its sha256"), std::string::npos);
}

TEST(ArchiveIdentity, CliInstallsARenamedDownloadFromADirectoryWithSpaces) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_linux_toolkit(root, 13000);
  fs::path file = renamed_copy(dir, kLinux919, "cudnn-linux-x86_64-9.19.0.56_cuda13-archive (1).tar.xz");
  std::string args =
      " --cuda-root " + sh_quoted(root) + " --manifest " + sh_quoted(corpus_manifest_file()) + " " + sh_quoted(file);
  auto before = snapshot(dir.path(), "");
  std::string out;
  EXPECT_EQ(run_command(cli() + " --dry-run" + args, &out), 0) << out;
  EXPECT_NE(out.find(std::string("recognised by its sha256 as ") + kLinux919), std::string::npos) << out;
  EXPECT_NE(out.find("matches manifest redistrib_local.json"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");  // the dry run wrote nothing
  EXPECT_EQ(run_command(cli() + " --yes --no-verify" + args, &out), 0) << out;
  EXPECT_TRUE(fs::exists(root / "lib/libcudnn.so.9.19.0")) << out;
  EXPECT_TRUE(fs::exists(root / "include/cudnn_version.h")) << out;
  EXPECT_NE(out.find("installed cuDNN 9.19.0.56"), std::string::npos) << out;
}

TEST(ArchiveIdentity, CliRefusesARenamedArchiveOfAnotherCudaMajor) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_linux_toolkit(root, 13000);
  // Named as a CUDA 13 archive, but its bytes are the CUDA 12 archive's: the sha256 says which it is.
  fs::path file = renamed_copy(dir, "cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz",
                               "cudnn-linux-sbsa-9.19.0.56_cuda13-archive (1).tar.xz");
  fs::path plain = renamed_copy(dir, "cudnn-linux-sbsa-8.9.7.29_cuda12-archive.tar.xz", "cudnn.tar.xz");
  auto before = snapshot(root);  // a real run's refusal leaves its log and lock in .cudnn-install, nothing else
  for (const fs::path& f : {file, plain}) {
    std::string out;
    int rc = run_command(cli() + (f == plain ? " --dry-run" : " --yes --no-verify") + " --cuda-root " +
                             sh_quoted(root) + " --manifest " + sh_quoted(corpus_manifest_file()) + " " + sh_quoted(f),
                         &out);
    EXPECT_EQ(rc, 2) << out;
    EXPECT_NE(out.find("built for CUDA 12"), std::string::npos) << out;
  }
  EXPECT_EQ(diff(before, snapshot(root)), "");
}
