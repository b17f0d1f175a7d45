// Stamps of installed files: trusted only while the file's identity is the stamped one and the
// file had changed before the stamping began; lost or damaged, they are simply none.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <thread>

#include "cudnn_install/file_stamps.hpp"
#include "cudnn_install/txn.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kCrcOfHello = 0x3610a686;  // CRC-32 of "hello"

struct StampedTree {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  std::unique_ptr<FileSystem> fs = make_real_filesystem();
  StampedTree() {
    fs::create_directories(state_dir(root));
    write_file(root / "include/cudnn.h", "hello");
  }
  std::optional<std::uint32_t> known(const std::string& target) {
    FileStamps stamps = read_file_stamps(*fs, root);
    return known_crc_from(*fs, stamps)(target, root / target);
  }
};

}  // namespace

TEST(FileStamps, AFileJustWrittenIsStampedAndItsCrcKnownWhileUnchanged) {
  StampedTree t;
  auto stamped = stamp_files(*t.fs, t.root, {"include/cudnn.h", "include/missing.h"});
  ASSERT_TRUE(stamped) << stamped.error().message;
  EXPECT_EQ(*stamped, 1u);  // the missing file is left out, the one written a moment ago is not
  EXPECT_EQ(t.known("include/cudnn.h"), kCrcOfHello);
  EXPECT_EQ(t.known("include/missing.h"), std::nullopt);
  { std::ofstream(t.root / "include/cudnn.h", std::ios::app) << ""; }  // opened for writing only
  EXPECT_EQ(t.known("include/cudnn.h"), kCrcOfHello);
  EXPECT_TRUE(stray_temporaries(t.root).empty());
}

TEST(FileStamps, ASameSizeRewriteIsNotTrustedEvenWithItsModificationTimeSetBack) {
  StampedTree t;
  fs::path file = t.root / "include/cudnn.h";
  auto mtime = fs::last_write_time(file);
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn.h"}));
  { std::ofstream(file, std::ios::binary | std::ios::in) << "j"; }
  fs::last_write_time(file, mtime);
  EXPECT_EQ(fs::file_size(file), 5u);
  EXPECT_EQ(t.known("include/cudnn.h"), std::nullopt);
}

TEST(FileStamps, AFileReplacedByRenameIsNotTrusted) {
  StampedTree t;
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn.h"}));
  write_file(t.root / "include/other", "hello");
  fs::rename(t.root / "include/other", t.root / "include/cudnn.h");
  EXPECT_EQ(t.known("include/cudnn.h"), std::nullopt);
}

// A file that changed in the tick the stamping began could change again unseen: never trusted.
TEST(FileStamps, AStampNotOlderThanTheStampingIsNotTrusted) {
  FileIdentity id{1, 2, 5, 100, 200};
  FileStamps stamps;
  stamps.files["include/cudnn.h"] = {id, kCrcOfHello};
  stamps.taken_ns = 201;
  EXPECT_EQ(stamps.crc_if_unchanged("include/cudnn.h", id), kCrcOfHello);
  stamps.taken_ns = 200;
  EXPECT_EQ(stamps.crc_if_unchanged("include/cudnn.h", id), std::nullopt);
  stamps.taken_ns = 201;
  FileIdentity changed = id;
  changed.ctime_ns = 300;
  EXPECT_EQ(stamps.crc_if_unchanged("include/cudnn.h", changed), std::nullopt);
  EXPECT_EQ(stamps.crc_if_unchanged("include/cudnn_ops.h", id), std::nullopt);
}

TEST(FileStamps, AMissingOrDamagedStampsFileIsNone) {
  StampedTree t;
  EXPECT_TRUE(read_file_stamps(*t.fs, t.root).files.empty());
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn.h"}));
  std::string whole = read_file(state_dir(t.root) / "stamps.json");
  for (std::size_t cut : {std::size_t{0}, whole.size() / 2, whole.size() - 3}) {
    write_file(state_dir(t.root) / "stamps.json", whole.substr(0, cut));
    EXPECT_TRUE(read_file_stamps(*t.fs, t.root).files.empty()) << cut;
  }
  write_file(state_dir(t.root) / "stamps.json", R"({"taken_ns": 5, "files": {"include/cudnn.h": [1, 2]}})");
  EXPECT_TRUE(read_file_stamps(*t.fs, t.root).files.empty());
}

// A file the transaction wrote under its temporary name and renamed into place is stamped with
// the CRC-32 it wrote, without being read: the stamp below holds a CRC the file does not have,
// which only the shortcut can produce. A file replaced since (another inode) is read.
TEST(FileStamps, AFileWrittenThenRenamedIntoPlaceIsStampedWithoutReadingIt) {
  StampedTree t;
  fs::path temp = t.root / "include/.cudnn-install-1-0.tmp", target = t.root / "include/cudnn_ops.h";
  write_file(temp, "world");
  auto written = t.fs->identity(temp);
  ASSERT_TRUE(written);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the rename comes in a later tick
  fs::rename(temp, target);
  constexpr std::uint32_t kNotItsCrc = 0x12345678;
  std::map<std::string, FileStamp> wrote{{"include/cudnn_ops.h", {*written, kNotItsCrc}},
                                         {"include/cudnn.h", {*written, kNotItsCrc}}};  // another file
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn_ops.h", "include/cudnn.h"}, wrote));
  EXPECT_EQ(t.known("include/cudnn_ops.h"), kNotItsCrc);
  EXPECT_EQ(t.known("include/cudnn.h"), kCrcOfHello);
}

TEST(FileStamps, WhatWasWrittenStandsOnlyForTheSameFileChangedInALaterTick) {
  FileIdentity written{1, 2, 5, 100, 100};
  FileIdentity renamed = written;
  renamed.ctime_ns = 150;
  EXPECT_TRUE(unchanged_since_written(written, renamed));
  EXPECT_FALSE(unchanged_since_written(written, written));  // renamed in the tick it was written
  FileIdentity rewritten = renamed;
  rewritten.mtime_ns = 150;
  EXPECT_FALSE(unchanged_since_written(written, rewritten));
  FileIdentity other_inode = renamed;
  other_inode.inode = 3;
  EXPECT_FALSE(unchanged_since_written(written, other_inode));
  FileIdentity other_size = renamed;
  other_size.size = 6;
  EXPECT_FALSE(unchanged_since_written(written, other_size));
}

// Stamping again (after an install that found the file identical) keeps a stamp that still
// counts instead of reading the file: the earlier stamp below was given a CRC the file does not
// have, and only that reuse can carry it over. A file changed since is read.
TEST(FileStamps, StampingAgainKeepsAStampThatStillCountsAndReadsAChangedFile) {
  StampedTree t;
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn.h"}));
  fs::path file = state_dir(t.root) / "stamps.json";
  auto j = nlohmann::json::parse(read_file(file));
  constexpr std::uint32_t kNotItsCrc = 0x12345678;
  j["files"]["include/cudnn.h"][5] = kNotItsCrc;
  write_file(file, j.dump());
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn.h"}));
  EXPECT_EQ(t.known("include/cudnn.h"), kNotItsCrc);

  write_file(t.root / "include/cudnn.h", "hello");  // the same bytes, written again: a new change time
  ASSERT_TRUE(stamp_files(*t.fs, t.root, {"include/cudnn.h"}));
  EXPECT_EQ(t.known("include/cudnn.h"), kCrcOfHello);
}
