// sha256 against the known-archives table and NVIDIA's manifests (the real files, three schemas).
#include <gtest/gtest.h>

#include "cudnn_install/integrity.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

std::vector<ManifestEntry> manifest(const std::string& name) {
  auto text = read_file(fs::path(SOURCE_DIR) / "tests/data/manifests" / name);
  auto entries = parse_manifest(text);
  if (!entries) throw std::runtime_error(entries.error().message);
  return *entries;
}

const ManifestEntry* find(const std::vector<ManifestEntry>& entries, const std::string& file) {
  for (const auto& e : entries)
    if (e.file_name == file) return &e;
  return nullptr;
}

}  // namespace

TEST(Integrity, TheTableHasEveryKnownArchive) {
  EXPECT_EQ(known_archives().size(), 532u);
  for (const auto& k : known_archives()) EXPECT_EQ(std::string(k.sha256).size(), 64u) << k.file_name;
}

TEST(Integrity, FlatSchema) {
  auto m = manifest("redistrib_8.9.5.30.json");
  auto e = find(m, "cudnn-linux-x86_64-8.9.5.30_cuda11-archive.tar.xz");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->sha256, "bbe10e3c08cd7e4aea1012213781e4fe270e1c908263444f567cafefb2cc6525");
  EXPECT_EQ(e->size, 857471712u);
}

TEST(Integrity, VariantSchemaAndTheMixed927Entry) {
  auto m = manifest("redistrib_9.10.2.json");
  EXPECT_TRUE(find(m, "cudnn-windows-x86_64-9.10.2.21_cuda11-archive.zip"));
  EXPECT_TRUE(find(m, "cudnn-windows-x86_64-9.10.2.21_cuda12-archive.zip"));
  auto m927 = manifest("redistrib_9.27.0.json");
  auto variant = find(m927, "cudnn-windows-arm64-9.27.0.42_cuda13-archive.zip");
  auto flat = find(m927, "cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip");
  ASSERT_TRUE(variant && flat);
  EXPECT_EQ(flat->sha256, "1fe473fc57095ac23ff39b2709edd5f8c3dec8376e6a6f3b812cf4617a29060d");
  EXPECT_EQ(variant->size, 468155439u);
  EXPECT_TRUE(find(manifest("redistrib_8.5.0.json"), "cudnn-windows-x86_64-8.5.0.96_cuda10-archive.zip"));
  EXPECT_TRUE(find(manifest("redistrib_9.13.0.json"), "cudnn-linux-sbsa-9.13.0.50_cuda13-archive.tar.xz"));
}

TEST(Integrity, NotAManifest) {
  EXPECT_FALSE(parse_manifest("{]"));
  EXPECT_FALSE(parse_manifest(R"({"cudnn": {"name": "x"}})"));
}

TEST(Integrity, MatchUnknownAndMismatch) {
  const KnownArchive& k = known_archives()[10];
  auto match = check_integrity(k.file_name, k.sha256, k.size, std::nullopt, "");
  ASSERT_TRUE(match);
  EXPECT_EQ(match->verdict, IntegrityCheck::Verdict::Match);
  auto unknown = check_integrity("my-cudnn.tar.xz", std::string(64, 'a'), 1, std::nullopt, "");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->verdict, IntegrityCheck::Verdict::Unknown);
  EXPECT_NE(unknown->note.find("--manifest"), std::string::npos);
  auto bad = check_integrity(k.file_name, std::string(64, 'b'), k.size, std::nullopt, "");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::IntegrityFailure);
  EXPECT_NE(bad.error().message.find("tampered"), std::string::npos);
  std::vector<ManifestEntry> mine{{k.file_name, "x", std::string(64, 'b'), 0}};
  auto by_manifest = check_integrity(k.file_name, std::string(64, 'b'), k.size, mine, "mine.json");
  ASSERT_TRUE(by_manifest);
  EXPECT_EQ(by_manifest->source, "manifest mine.json");
}

TEST(Integrity, Sha256OfAFile) {
  TempDir dir;
  write_file(dir.path() / "abc", "abc");
  EXPECT_EQ(sha256_file(dir.path() / "abc").value(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// The file is hashed in chunks read on a second thread: sizes around the chunk boundaries, against
// coreutils' sha256sum.
TEST(Integrity, Sha256AtEveryChunkBoundaryMatchesSha256sum) {
  TempDir dir;
  const std::size_t chunk = 1 << 20;
  for (std::size_t size : {std::size_t{0}, chunk - 1, chunk, chunk + 1, 3 * chunk + 5}) {
    fs::path file = dir.path() / ("f" + std::to_string(size));
    std::string content(size, '\0');
    for (std::size_t i = 0; i < size; ++i) content[i] = static_cast<char>(i * 7 + i / 4096);
    write_file(file, content);
    std::string expected;
    ASSERT_EQ(run_command("sha256sum '" + file.string() + "'", &expected), 0);
    uint64_t last_done = 0;
    auto sha = sha256_file(file, [&](std::uint64_t done, std::uint64_t total) {
      EXPECT_LE(done, total);
      last_done = done;
    });
    ASSERT_TRUE(sha) << sha.error().message;
    EXPECT_EQ(*sha, expected.substr(0, 64)) << size;
    EXPECT_EQ(last_done, size);
  }
}

TEST(Integrity, CliRefusesATamperedArchiveAndWarnsAboutUnknownOnes) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  std::string archive = std::string(CORPUS_DIR) + "/good/cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  std::string out;
  EXPECT_EQ(run_command(std::string(CLI_PATH) + " --dry-run --cuda-root " + dir.path().string() + " " + archive, &out),
            2);
  EXPECT_NE(out.find("does not match the table of known cuDNN archives"), std::string::npos) << out;
  EXPECT_EQ(
      run_command(std::string(CLI_PATH) + " --dry-run --cuda-root " + dir.path().string() + " " + archive_args(archive),
                  &out),
      0);
  EXPECT_NE(out.find("matches manifest redistrib_local.json"), std::string::npos) << out;
  // Renamed, it is recognised by its top folder and checked as NVIDIA's archive of that name: the
  // corpus's bytes are not NVIDIA's, so it is refused, --force-name or not (issue 19).
  fs::copy_file(archive, dir.path() / "renamed.tar.xz");
  for (std::string flag : {"", " --force-name"}) {
    EXPECT_EQ(run_command(std::string(CLI_PATH) + " --dry-run" + flag + " --cuda-root " + dir.path().string() + " " +
                              (dir.path() / "renamed.tar.xz").string(),
                          &out),
              2)
        << out;
    EXPECT_NE(out.find("'renamed.tar.xz' was recognised by its top folder as "
                       "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("does not match the table of known cuDNN archives"), std::string::npos) << out;
  }
}
