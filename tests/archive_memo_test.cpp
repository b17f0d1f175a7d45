// The toolkit's memo of archives: kept per file identity, replayed as the same inspection.
#include <gtest/gtest.h>

#include <fstream>

#include "cudnn_install/archive.hpp"
#include "cudnn_install/archive_memo.hpp"
#include "cudnn_install/txn.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

ArchiveMemo memo_of(FileSystem& fs, const fs::path& archive, const std::string& sha) {
  auto info = inspect_archive(archive, std::nullopt);
  if (!info) throw std::runtime_error(info.error().message);
  return ArchiveMemo{*fs.identity(archive), sha, "", info->listing};
}

}  // namespace

TEST(ArchiveMemo, ReplaysTheSameInspectionWhileTheFileIsUnchanged) {
  TempDir dir;
  fs::path root = dir.path() / "cuda", archive = dir.path() / "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  fs::create_directories(state_dir(root));
  fs::copy_file(corpus_archive(archive.filename().string()), archive);
  auto fs = make_real_filesystem();
  EXPECT_FALSE(find_archive_memo(*fs, root, archive));
  ASSERT_TRUE(remember_archive(*fs, root, memo_of(*fs, archive, "ab12")));

  auto memo = find_archive_memo(*fs, root, archive);
  ASSERT_TRUE(memo);
  EXPECT_EQ(memo->sha256, "ab12");
  EXPECT_FALSE(memo->time.empty());
  auto replayed = inspect_with_listing(archive, std::nullopt, memo->listing);
  auto read = inspect_archive(archive, std::nullopt);
  ASSERT_TRUE(replayed && read);
  ASSERT_EQ(replayed->entries.size(), read->entries.size());
  for (std::size_t i = 0; i < read->entries.size(); ++i) {
    EXPECT_EQ(replayed->entries[i].raw.name, read->entries[i].raw.name);
    EXPECT_EQ(replayed->entries[i].raw.crc32, read->entries[i].raw.crc32);
    EXPECT_EQ(replayed->entries[i].raw.link_target, read->entries[i].raw.link_target);
    EXPECT_EQ(replayed->entries[i].raw.mode, read->entries[i].raw.mode);
  }
  EXPECT_EQ(replayed->header_version.to_string(), read->header_version.to_string());

  { std::ofstream(archive, std::ios::app) << ""; }  // opened for writing, nothing written: still the same
  EXPECT_TRUE(find_archive_memo(*fs, root, archive));
  { std::ofstream(archive, std::ios::binary | std::ios::in) << read_file(archive).substr(0, 1); }  // rewritten
  EXPECT_FALSE(find_archive_memo(*fs, root, archive));
}

TEST(ArchiveMemo, KeepsTheNewestFewAndForgetsADamagedFile) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  fs::create_directories(state_dir(root));
  auto fs = make_real_filesystem();
  std::vector<fs::path> copies;
  for (int i = 0; i < 6; ++i) {
    fs::path copy = dir.path() / std::to_string(i) / "cudnn-linux-sbsa-9.19.0.56_cuda13-archive.tar.xz";
    fs::create_directories(copy.parent_path());
    fs::copy_file(corpus_archive(copy.filename().string()), copy);
    ASSERT_TRUE(remember_archive(*fs, root, memo_of(*fs, copy, std::to_string(i))));
    copies.push_back(copy);
  }
  auto memos = read_archive_memos(*fs, root);
  ASSERT_EQ(memos.size(), kRememberedArchives);
  EXPECT_EQ(memos.front().sha256, "5");
  EXPECT_FALSE(find_archive_memo(*fs, root, copies[0]));
  EXPECT_TRUE(find_archive_memo(*fs, root, copies[5]));
  EXPECT_TRUE(stray_temporaries(root).empty());

  write_file(state_dir(root) / "archives.json", "{\"archives\": [{\"identity\": [1, 2]");  // cut short
  EXPECT_TRUE(read_archive_memos(*fs, root).empty());
  ASSERT_TRUE(remember_archive(*fs, root, memo_of(*fs, copies[1], "again")));
  EXPECT_EQ(read_archive_memos(*fs, root).size(), 1u);
}
