// Each safety rule on its own, on listings built in memory.
#include <gtest/gtest.h>

#include "archive_inspect.hpp"
#include "cudnn_install/archive.hpp"

using namespace cudnn_install;

namespace {

RawEntry file(std::string name) { return RawEntry{std::move(name), EntryType::File, 10, 0644, {}, 1u}; }
RawEntry slink(std::string name, std::string target) {
  return RawEntry{std::move(name), EntryType::Symlink, 0, 0777, std::move(target), std::nullopt};
}
RawEntry of_type(std::string name, EntryType type) { return RawEntry{std::move(name), type, 0, 0, {}, std::nullopt}; }

std::string refusal(std::vector<RawEntry> entries, TargetOs os = TargetOs::Linux) {
  auto r = check_entry_safety(entries, os);
  return r ? std::string() : r.error().message;
}

}  // namespace

TEST(ArchiveSafety, AcceptsARealLayout) {
  EXPECT_EQ(refusal({of_type("a/", EntryType::Directory), file("a/include/cudnn.h"), file("a/lib/libcudnn.so.9.1.0"),
                     slink("a/lib/libcudnn.so.9", "libcudnn.so.9.1.0"), slink("a/lib/libcudnn.so", "libcudnn.so.9")}),
            "");
}

TEST(ArchiveSafety, EachRuleNamesTheEntryAndWhy) {
  struct Case {
    std::vector<RawEntry> entries;
    TargetOs os;
    std::string expected;
  } cases[] = {
      {{file("/etc/passwd")}, TargetOs::Linux, "entry '/etc/passwd' is an absolute path"},
      {{file("\\evil.dll")}, TargetOs::Windows, "absolute path"},
      {{file("D:/evil.dll")}, TargetOs::Windows, "drive letter"},
      {{file("a/../../x")}, TargetOs::Linux, "'..'"},
      {{file("a\\..\\..\\x")}, TargetOs::Windows, "'..'"},
      {{file("a/..")}, TargetOs::Linux, "'..'"},
      {{file("a/x\x01y")}, TargetOs::Linux, "control characters"},
      {{file("a/x:stream")}, TargetOs::Windows, "invalid in Windows"},
      {{of_type("a/h", EntryType::Hardlink)}, TargetOs::Linux, "hard link"},
      {{of_type("a/d", EntryType::Device)}, TargetOs::Linux, "device node"},
      {{of_type("a/f", EntryType::Fifo)}, TargetOs::Linux, "FIFO"},
      {{of_type("a/s", EntryType::Other)}, TargetOs::Linux, "not a regular file"},
      {{file("a/x"), file("a/x")}, TargetOs::Linux, "appears twice"},
      {{file("a/x"), file("./a/x")}, TargetOs::Linux, "appears twice"},
      {{file("a/X.dll"), file("a/x.dll")}, TargetOs::Windows, "only in case"},
      {{slink("a/l", "/etc/passwd")}, TargetOs::Linux, "absolute path"},
      {{slink("a/l", "../x")}, TargetOs::Linux, "leaves its own directory"},
      {{slink("a/l", "")}, TargetOs::Linux, "empty target"},
      {{slink("a/l", "..")}, TargetOs::Linux, "'..'"},
      {{slink("a/l", ".")}, TargetOs::Linux, "to a directory"},
      {{slink("a/l", "gone")}, TargetOs::Linux, "not in the archive"},
      {{slink("a/l", "m"), slink("a/m", "l")}, TargetOs::Linux, "loop"},
      {{slink("a/d", "x"), file("a/x"), file("a/d/y")}, TargetOs::Linux, "through the symlink 'a/d'"},
      {{}, TargetOs::Linux, "no files"},
      {{of_type("a/", EntryType::Directory)}, TargetOs::Linux, "no files"},
  };
  for (const auto& c : cases) {
    std::string message = refusal(c.entries, c.os);
    EXPECT_NE(message.find(c.expected), std::string::npos) << "expected '" << c.expected << "' in: " << message;
  }
}

TEST(ArchiveSafety, CaseCollisionIsFineOnLinux) {
  EXPECT_EQ(refusal({file("a/include/X.h"), file("a/include/x.h")}, TargetOs::Linux), "");
}

TEST(ArchiveSafety, ListsEveryProblemNotJustTheFirst) {
  std::string message = refusal({file("/abs"), file("a/../b"), of_type("a/dev", EntryType::Device)});
  EXPECT_NE(message.find("/abs"), std::string::npos);
  EXPECT_NE(message.find("a/../b"), std::string::npos);
  EXPECT_NE(message.find("a/dev"), std::string::npos);
}

// Issue 18, class 1: names Windows cannot hold are refused on the listing, before any plan (and in
// --dry-run): device names whatever their extension, and components ending in a dot or a space.
TEST(ArchiveSafety, WindowsDeviceNamesAndTrailingDotsOrSpacesAreRefused) {
  for (const char* name : {"a/include/CON", "a/include/aux.h", "a/include/Nul.txt", "a/bin/com1.dll", "a/bin/LPT9",
                           "a/include/cudnn.h.", "a/include/cudnn.h ", "a/aux/cudnn.h", "a/bin./cudnn64_9.dll",
                           "a/include/conin$.h", "a/bin/com\xc2\xb9.dll", "a/include/aux .h"}) {
    std::string why = refusal({file(name)}, TargetOs::Windows);
    EXPECT_NE(why, "") << name;
    EXPECT_TRUE(why.find("Windows device") != std::string::npos || why.find("dot or a space") != std::string::npos)
        << name << ": " << why;
  }
  for (const char* name : {"a/include/cudnn.h", "a/include/console.h", "a/bin/cudnn_auxiliary64_9.dll",
                           "a/lib/x64/com10.lib", "a/include/auxx.h"})
    EXPECT_EQ(refusal({file(name)}, TargetOs::Windows), "") << name;
  EXPECT_EQ(refusal({file("a/include/aux.h")}, TargetOs::Linux), "");  // a Linux toolkit holds it
}
