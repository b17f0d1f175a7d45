// The dry-run filesystem and the install forecast: later reads see earlier changes, nothing is
// written, and what the real run would stop at is found.
#include <gtest/gtest.h>

#include "cudnn_install/preview.hpp"
#include "support/faulty_filesystem.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

TEST(Preview, ReadsSeeEarlierChangesAndNothingIsWritten) {
  TempDir dir;
  write_file(dir.path() / "a/one", "1");
  write_file(dir.path() / "a/two", "22");
  auto before = snapshot(dir.path(), "");
  auto real = make_real_filesystem();
  PreviewFileSystem fs(*real);
  ASSERT_TRUE(fs.rename(dir.path() / "a/one", dir.path() / "b", RenameMode::Replace));
  EXPECT_FALSE(*fs.stat(dir.path() / "a/one"));
  EXPECT_EQ(*fs.read_file(dir.path() / "b"), "1");
  EXPECT_FALSE(fs.remove(dir.path() / "a")) << "not empty yet";
  ASSERT_TRUE(fs.remove(dir.path() / "a/two"));
  EXPECT_TRUE(fs.list_dir(dir.path() / "a")->empty());
  ASSERT_TRUE(fs.remove(dir.path() / "a"));
  EXPECT_FALSE(*fs.stat(dir.path() / "a/two"));
  ASSERT_TRUE(fs.append_durable(dir.path() / "journal", "x\n"));
  ASSERT_TRUE(fs.append_durable(dir.path() / "journal", "y\n"));
  EXPECT_EQ(*fs.read_file(dir.path() / "journal"), "x\ny\n");
  auto out = fs.create_new(dir.path() / "new", 0644);
  ASSERT_TRUE(out);
  ASSERT_TRUE((*out)->write(std::span<const char>("abc", 3)));
  ASSERT_TRUE((*out)->sync_and_close());
  EXPECT_EQ((*fs.stat(dir.path() / "new"))->size, 3u);
  auto names = *fs.list_dir(dir.path());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"b", "journal", "new"}));
  EXPECT_EQ(fs.changes().size(), 6u);  // the refused removal is not one
  EXPECT_EQ(diff(before, snapshot(dir.path(), "")), "");
}

TEST(Preview, AChangeTheUserMayNotMakeFailsAsTheRealOneWould) {
  TempDir dir;
  write_file(dir.path() / "locked/file", "1");
  auto real = make_real_filesystem();
  PreviewFileSystem fs(*real, [&](const fs::path& p) { return p != dir.path() / "locked"; });
  auto removed = fs.remove(dir.path() / "locked/file");
  ASSERT_FALSE(removed);
  EXPECT_EQ(removed.error().code, ErrorCode::Io);
  EXPECT_NE(removed.error().message.find("permission denied"), std::string::npos);
  EXPECT_TRUE(fs.rename(dir.path() / "locked", dir.path() / "moved", RenameMode::Replace));
}

TEST(Preview, ForecastFindsTheLockRightsAndSpaceTheRealInstallNeeds) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto prepared = prepare(dir.path(), corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  auto real = make_real_filesystem();
  FaultyFileSystem plenty(*real, 0, FaultyFileSystem::Mode::FailOnce);
  plenty.space_answer = [](const fs::path&) { return std::optional(FreeSpace{1, 1ull << 40, 4096}); };
  auto all = [](const fs::path&) { return true; };
  ASSERT_TRUE(forecast_install(plenty, dir.path(), prepared.plan, all));
  auto no_lib =
      forecast_install(plenty, dir.path(), prepared.plan, [&](const fs::path& p) { return p != dir.path() / "lib"; });
  ASSERT_FALSE(no_lib);
  EXPECT_NE(no_lib.error().message.find("cannot write in '" + (dir.path() / "lib").string()), std::string::npos);
  auto no_root =
      forecast_install(plenty, dir.path(), prepared.plan, [&](const fs::path& p) { return p != dir.path(); });
  ASSERT_FALSE(no_root);
  EXPECT_NE(no_root.error().message.find(".cudnn-install"), std::string::npos) << no_root.error().message;
  FaultyFileSystem full_disk(*real, 0, FaultyFileSystem::Mode::FailOnce);
  full_disk.space_answer = [](const fs::path&) { return std::optional(FreeSpace{1, 10, 4096}); };
  auto full = forecast_install(full_disk, dir.path(), prepared.plan, all);
  ASSERT_FALSE(full);
  EXPECT_NE(full.error().message.find("not enough space"), std::string::npos) << full.error().message;
  EXPECT_NE(full.error().message.find("10 B are free"), std::string::npos) << full.error().message;
}

TEST(Preview, DescribesRestoresAndRemovalsWithSizes) {
  fs::path root = "/t";
  std::vector<PreviewChange> changes{
      {PreviewChange::Kind::Move, "/t/.cudnn-install/backup/1/0", "/t/include/cudnn.h", 10},
      {PreviewChange::Kind::Remove, "/t/lib/libcudnn.so.9", {}, 20},
      {PreviewChange::Kind::Remove, "/etc/ld.so.conf.d/x.conf", {}, 5},
      {PreviewChange::Kind::Append, "/t/.cudnn-install/journal.jsonl", {}, 99},
  };
  EXPECT_EQ(
      describe_changes(changes, root),
      (std::vector<std::string>{"restore  include/cudnn.h (10 bytes, from the backup)",
                                "remove   lib/libcudnn.so.9 (20 bytes)", "remove   /etc/ld.so.conf.d/x.conf (5 bytes)",
                                "state    .cudnn-install: the journal, backups and history of the transactions undone",
                                "total    10 bytes restored, 25 bytes removed"}));
}
