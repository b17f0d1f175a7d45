#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cudnn_install/archive_name.hpp"

using namespace cudnn_install;

namespace {

struct Row {
  std::string file, version, platform, cuda;
};

// data/known-archives.tsv is generated from ../shared/reference/cudnn-archives.json (532 rows).
std::vector<Row> known_rows() {
  std::ifstream in(std::string(SOURCE_DIR) + "/data/known-archives.tsv");
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Row r;
    std::getline(fields, r.file, '\t');
    std::getline(fields, r.version, '\t');
    std::getline(fields, r.platform, '\t');
    std::getline(fields, r.cuda, '\t');
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

TEST(ArchiveName, ParsesEveryKnownArchiveName) {
  auto rows = known_rows();
  ASSERT_EQ(rows.size(), 532u);
  for (const auto& row : rows) {
    auto name = parse_archive_name(row.file);
    ASSERT_TRUE(name) << row.file << ": " << name.error().message;
    // Old names carry two parts ("v7.1") where the row knows three ("7.1.3").
    std::string parsed = name->version.to_string();
    EXPECT_TRUE(row.version == parsed || row.version.starts_with(parsed + ".")) << row.file << " " << parsed;
    EXPECT_EQ(name->platform, row.platform) << row.file;
    EXPECT_EQ(name->cuda.text, row.cuda) << row.file;
  }
}

TEST(ArchiveName, ModernFields) {
  auto n = parse_archive_name("cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->era, NameEra::ArchiveMajor);
  EXPECT_EQ(n->os, TargetOs::Windows);
  EXPECT_EQ(n->container, Container::Zip);
  EXPECT_EQ(n->cuda.major, 12);
  EXPECT_FALSE(n->cuda.minor);
  EXPECT_EQ(n->version.to_string(), "8.9.5.30");
  EXPECT_EQ(n->version.number(), 8905);
  EXPECT_EQ(n->top_folder, "cudnn-windows-x86_64-8.9.5.30_cuda12-archive");
}

TEST(ArchiveName, MinorCudaTagEraAndArm64) {
  auto n = parse_archive_name("cudnn-linux-x86_64-8.3.2.44_cuda11.5-archive.tar.xz");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->era, NameEra::ArchiveMinor);
  EXPECT_EQ(n->cuda.major, 11);
  EXPECT_EQ(n->cuda.minor, 5);
  auto arm = parse_archive_name("cudnn-windows-arm64-9.27.0.42_cuda13.4-archive.zip");
  ASSERT_TRUE(arm);
  EXPECT_EQ(arm->platform, "windows-arm64");
  EXPECT_EQ(arm->version.number(), 92700);
}

TEST(ArchiveName, LegacyFields) {
  auto n = parse_archive_name("cudnn-10.2-windows10-x64-v7.6.5.32.zip");
  ASSERT_TRUE(n);
  EXPECT_EQ(n->era, NameEra::Legacy);
  EXPECT_EQ(n->os, TargetOs::Windows);
  EXPECT_EQ(n->top_folder, "cuda");
  EXPECT_EQ(n->version.number(), 7605);
  auto old = parse_archive_name("cudnn-8.0-linux-x64-v5.1.tgz");
  ASSERT_TRUE(old);
  EXPECT_FALSE(old->version.patch);
  EXPECT_EQ(old->container, Container::Tgz);
}

TEST(ArchiveName, RefusesOtherNamesWithTheExpectedForm) {
  for (const char* bad :
       {"cudnn.zip", "cudnn-windows-x86_64-9.1_cuda12.zip", "cudnn-linux-x86_64-9.1.0.1_cuda-archive.tar.xz",
        "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.tar.xz",  // Windows is .zip
        "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.zip",       // Linux is .tar.xz
        "cudnn-linux-x86_64-9..19_cuda13-archive.tar.xz", "cudnn-linux-x86_64-9.19._cuda13-archive.tar.xz", "",
        "cudnn-12.0-linux-x64-v8.zip"}) {
    auto n = parse_archive_name(bad);
    ASSERT_FALSE(n) << bad;
    EXPECT_EQ(n.error().code, ErrorCode::BadName) << bad;
  }
  auto n = parse_archive_name("cudnn.zip");
  EXPECT_NE(n.error().message.find("cudnn-<plat>-<ver>_cuda<major>-archive"), std::string::npos);
  EXPECT_NE(n.error().message.find("a renamed download is recognised by its sha256"), std::string::npos);
  EXPECT_EQ(n.error().message.find("--force-name"), std::string::npos);
}

TEST(ArchiveName, VersionRelease) {
  CudnnVersion full{9, 19, 0, 56};
  CudnnVersion header{9, 19, 0, std::nullopt};
  CudnnVersion two{7, 1, std::nullopt, std::nullopt};
  EXPECT_TRUE(full.same_release(header));
  EXPECT_FALSE(full.same_release(CudnnVersion{9, 18, 0, std::nullopt}));
  EXPECT_TRUE(two.same_release(CudnnVersion{7, 1, 3, std::nullopt}));
  EXPECT_EQ(header.number(), 91900);
}

// Found by fuzz_archive_name: huge parts overflowed CUDNN_VERSION arithmetic.
TEST(ArchiveName, RefusesAbsurdlyLargeVersionParts) {
  EXPECT_FALSE(parse_archive_name("cudnn-linux-x86_64-2147483647.9.0.1_cuda13-archive.tar.xz"));
  EXPECT_FALSE(parse_archive_name("cudnn-linux-x86_64-9.19.0.1_cuda99999999999-archive.tar.xz"));
}
