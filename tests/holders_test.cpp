// What holders mean for an install, with the process finder faked: the same rules run on Linux
// and in the Windows suite (where Restart Manager under Wine cannot name a real holder).
#include <gtest/gtest.h>

#include "support/fake_process_finder.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;

namespace {

const std::vector<WatchedFile> kFiles = {{"C:/CUDA/v13.0/bin/x64/cudnn64_9.dll", {}},
                                         {"C:/CUDA/v13.0/bin/x64/cudnn_ops64_9.dll", {}}};

HolderScan python_holds_cudnn() {
  Holder h;
  h.pid = 4242;
  h.program = "C:/Python311/python.exe";
  h.file = kFiles[0].path;
  return HolderScan{{h}, {}, ""};
}

}  // namespace

TEST(Holders, AHolderRefusesTheInstallNamingPidAndProgram) {
  FakeProcessFinder finder(python_holds_cudnn());
  auto r = check_holders(finder, kFiles, HolderRule::Refuse, "Stop them and run again, or pass --replace-in-use.");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::Conflict);
  for (const char* part : {"PID 4242", "C:/Python311/python.exe", "cudnn64_9.dll", "--replace-in-use"})
    EXPECT_NE(r.error().message.find(part), std::string::npos) << part << "\n" << r.error().message;
  EXPECT_EQ(finder.asked.size(), 2u);  // every file the install replaces was asked about
}

TEST(Holders, WithWarnTheHoldersAreNamedAndTheInstallGoesOn) {
  FakeProcessFinder finder(python_holds_cudnn());
  auto note = check_holders(finder, kFiles, HolderRule::Warn, "");
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("keep running the old cuDNN until restarted"), std::string::npos) << *note;
  EXPECT_NE(note->find("PID 4242"), std::string::npos) << *note;
}

// Restart Manager under Wine answers "nobody" whatever runs: that is reported as unknown, not none;
// so is a finder that fails.
TEST(Holders, UnavailableIsUnknownNeverNone) {
  FakeProcessFinder wine(HolderScan{{}, {}, "Restart Manager under Wine always answers no processes"});
  auto note = check_holders(wine, kFiles, HolderRule::Refuse, "");
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("holders: unknown (not available): Restart Manager under Wine"), std::string::npos) << *note;
  FakeProcessFinder broken(fail(ErrorCode::Io, "RmStartSession failed (error 5)"));
  note = check_holders(broken, kFiles, HolderRule::Refuse, "");
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("unknown (not available): RmStartSession failed"), std::string::npos) << *note;
  FakeProcessFinder nobody(HolderScan{});
  note = check_holders(nobody, kFiles, HolderRule::Refuse, "");
  ASSERT_TRUE(note);
  EXPECT_EQ(*note, "");
}
