// Issue 18, class 5: the fallbacks of the rename that never replaces (filesystem_rename_posix.hpp).
// The machines that run the tests support RENAME_NOREPLACE and hard links, so the calls are played
// here as a filesystem without them answers (renameat2: EINVAL or ENOSYS; link: EPERM on FAT), on
// real files. Each path must move a free name, never replace what is there, and say which it did.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>

#include "filesystem_rename_posix.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

int fails_with(int err) { return errno = err, -1; }

// The system's calls with renameat2 as a filesystem without RENAME_NOREPLACE answers it, and
// (without_links) link(2) as one without hard links; `used` records which calls were made.
posix::NoReplaceCalls played(int renameat2_errno, bool without_links, std::vector<std::string>& used) {
  auto real = posix::system_no_replace_calls();
  posix::NoReplaceCalls calls = real;
  calls.rename_noreplace = [&used, renameat2_errno](const char*, const char*) {
    used.push_back("renameat2");
    return fails_with(renameat2_errno);
  };
  calls.link = [&used, real, without_links](const char* from, const char* to) {
    used.push_back("link");
    return without_links ? fails_with(EPERM) : real.link(from, to);
  };
  calls.lstat = [&used, real](const char* path) {
    used.push_back("lstat");
    return real.lstat(path);
  };
  calls.rename = [&used, real](const char* from, const char* to) {
    used.push_back("rename");
    return real.rename(from, to);
  };
  return calls;
}

struct Case {
  const char* name;
  int renameat2_errno;
  bool without_links;
  std::vector<std::string> calls_to_a_free_name;
};

const Case kCases[] = {
    {"no RENAME_NOREPLACE (EINVAL): link + unlink", EINVAL, false, {"renameat2", "link"}},
    {"an old kernel (ENOSYS): link + unlink", ENOSYS, false, {"renameat2", "link"}},
    {"no RENAME_NOREPLACE and no hard links (FAT): lstat + rename",
     EINVAL,
     true,
     {"renameat2", "link", "lstat", "rename"}},
};

}  // namespace

TEST(RenameNoReplace, EachFallbackMovesToAFreeName) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    write_file(dir.path() / "new", "new bytes");
    std::vector<std::string> used;
    auto moved = posix::rename_no_replace(dir.path() / "new", dir.path() / "free",
                                          played(c.renameat2_errno, c.without_links, used));
    ASSERT_TRUE(moved) << moved.error().message;
    EXPECT_EQ(used, c.calls_to_a_free_name);
    EXPECT_EQ(read_file(dir.path() / "free"), "new bytes");
    EXPECT_FALSE(fs::exists(dir.path() / "new")) << "moved, not copied: no second name left";
    EXPECT_EQ(fs::hard_link_count(dir.path() / "free"), 1u);
  }
}

TEST(RenameNoReplace, EachFallbackLeavesWhatIsThereAndSaysSo) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    TempDir dir;
    write_file(dir.path() / "new", "new bytes");
    write_file(dir.path() / "taken", "another program's file");
    fs::create_symlink("dangling", dir.path() / "link");
    for (const char* to : {"taken", "link"}) {
      SCOPED_TRACE(to);
      std::vector<std::string> used;
      auto refused = posix::rename_no_replace(dir.path() / "new", dir.path() / to,
                                              played(c.renameat2_errno, c.without_links, used));
      ASSERT_FALSE(refused);
      EXPECT_EQ(refused.error().code, ErrorCode::Conflict);
      EXPECT_NE(refused.error().message.find("it was not replaced"), std::string::npos) << refused.error().message;
      EXPECT_EQ(std::count(used.begin(), used.end(), "rename"), 0) << "nothing was renamed over it";
    }
    EXPECT_EQ(read_file(dir.path() / "taken"), "another program's file");
    EXPECT_EQ(fs::read_symlink(dir.path() / "link"), "dangling");
    EXPECT_EQ(read_file(dir.path() / "new"), "new bytes");
  }
}

// The link was made but the old name cannot be removed: the new name goes again, so the file is
// left as it was (under its old name only) and the error names the cause.
TEST(RenameNoReplace, AnUnlinkThatFailsAfterTheLinkTakesTheLinkBack) {
  TempDir dir;
  write_file(dir.path() / "new", "new bytes");
  std::vector<std::string> used;
  auto calls = played(EINVAL, false, used);
  auto real_unlink = posix::system_no_replace_calls().unlink;
  calls.unlink = [&, real_unlink](const char* path) {
    if (fs::path(path) == dir.path() / "new") return fails_with(EACCES);
    return real_unlink(path);
  };
  auto r = posix::rename_no_replace(dir.path() / "new", dir.path() / "free", calls);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Io);
  EXPECT_NE(r.error().message.find("cannot remove"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("permission denied"), std::string::npos) << r.error().message;
  EXPECT_FALSE(fs::exists(dir.path() / "free"));
  EXPECT_EQ(read_file(dir.path() / "new"), "new bytes");
  EXPECT_EQ(fs::hard_link_count(dir.path() / "new"), 1u);
}

// Any other error of renameat2 (a permission, a full disk) is the answer: no fallback is tried.
TEST(RenameNoReplace, OtherErrorsAreReportedWithoutAFallback) {
  TempDir dir;
  write_file(dir.path() / "new", "new bytes");
  std::vector<std::string> used;
  auto r = posix::rename_no_replace(dir.path() / "new", dir.path() / "free", played(EROFS, false, used));
  ASSERT_FALSE(r);
  EXPECT_EQ(used, std::vector<std::string>{"renameat2"});
  EXPECT_FALSE(fs::exists(dir.path() / "free"));
}
