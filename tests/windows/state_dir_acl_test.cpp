// Issue 18, class 3 on Windows: the state directory's owner and ACL stand in for POSIX's owner and
// mode. A new one gets an ACL of its own (no group of every user may write it, whatever the
// toolkit's ACL grants); one that Everyone, Authenticated Users or Users may write is refused,
// naming who and the icacls command that fixes it, and nothing is changed.
#include <aclapi.h>
#include <gtest/gtest.h>
#include <sddl.h>
#include <windows.h>

#include <cstdio>

#include "cudnn_install/state_dir.hpp"
#include "cudnn_install/state_lock.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// The rights that allow ACEs applying to the directory itself give `group` (all, for no ACL).
ACCESS_MASK group_rights(const fs::path& dir, WELL_KNOWN_SID_TYPE group) {
  PACL dacl = nullptr;
  PSECURITY_DESCRIPTOR sd = nullptr;
  if (GetNamedSecurityInfoW(dir.c_str(), SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, nullptr, nullptr, &dacl, nullptr,
                            &sd) != ERROR_SUCCESS)
    throw std::runtime_error("cannot read the ACL of " + dir.string());
  ACCESS_MASK rights = dacl == nullptr ? GENERIC_ALL : 0;
  for (DWORD i = 0; dacl && i < dacl->AceCount; ++i) {
    void* ace = nullptr;
    if (!GetAce(dacl, i, &ace)) continue;
    auto* allowed = static_cast<ACCESS_ALLOWED_ACE*>(ace);
    if (allowed->Header.AceType == ACCESS_ALLOWED_ACE_TYPE && !(allowed->Header.AceFlags & INHERIT_ONLY_ACE) &&
        IsWellKnownSid(&allowed->SidStart, group))
      rights |= allowed->Mask;
  }
  LocalFree(sd);
  return rights;
}

bool group_may_add_files(const fs::path& dir, WELL_KNOWN_SID_TYPE group) {
  return (group_rights(dir, group) & (FILE_ADD_FILE | GENERIC_ALL | GENERIC_WRITE)) != 0;
}

// Gives `group` full control of `dir`, as a careless ACL (or one inherited from C:\) would.
void grant_full_control(const fs::path& dir, const wchar_t* group_sid) {
  std::wstring sddl = std::wstring(L"D:(A;OICI;FA;;;") + group_sid + L")(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)";
  PSECURITY_DESCRIPTOR sd = nullptr;
  ASSERT_TRUE(ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, &sd, nullptr));
  BOOL present = FALSE, defaulted = FALSE;
  PACL dacl = nullptr;
  ASSERT_TRUE(GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted));
  DWORD err = SetNamedSecurityInfoW(const_cast<wchar_t*>(dir.c_str()), SE_FILE_OBJECT,
                                    DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION, nullptr, nullptr,
                                    dacl, nullptr);
  LocalFree(sd);
  ASSERT_EQ(err, static_cast<DWORD>(ERROR_SUCCESS));
}

}  // namespace

TEST(WinStateDir, ANewStateDirectoryIsWritableByNoGroupOfEveryUser) {
  TempDir dir;
  auto lock = acquire_state_lock(dir.path());
  ASSERT_TRUE(lock) << lock.error().message;
  for (auto group : {WinWorldSid, WinAuthenticatedUserSid, WinBuiltinUsersSid})
    EXPECT_FALSE(group_may_add_files(state_dir(dir.path()), group)) << "group " << group;
  // Its own ACL, not one inherited or made from the default mode (where Everyone may read):
  // SYSTEM, the Administrators and this user have it, the Users may read it, Everyone nothing.
  EXPECT_EQ(group_rights(state_dir(dir.path()), WinWorldSid), 0u);
}

// Wine keeps no ACL on the host's files: it shows one made from the mode bits, where only
// Everyone (the "others" bits) is a group of every user. Grants that do not stay are skipped.
TEST(WinStateDir, OneThatEveryoneOrTheUsersMayWriteIsRefused) {
  const std::pair<const wchar_t*, WELL_KNOWN_SID_TYPE> groups[] = {
      {L"WD", WinWorldSid}, {L"AU", WinAuthenticatedUserSid}, {L"BU", WinBuiltinUsersSid}};
  int tried = 0;
  for (const auto& [group, sid_type] : groups) {
    TempDir dir;
    ASSERT_TRUE(acquire_state_lock(dir.path()));  // made, with its own ACL
    grant_full_control(state_dir(dir.path()), group);
    if (!group_may_add_files(state_dir(dir.path()), sid_type)) {
      std::printf("skipped %ls: this system did not keep the grant (Wine maps ACLs to mode bits)\n", group);
      continue;
    }
    ++tried;
    ASSERT_TRUE(fs::remove(state_dir(dir.path()) / "lock"));
    auto refused = acquire_state_lock(dir.path());
    ASSERT_FALSE(refused) << "state directory writable by " << fs::path(group).string();
    EXPECT_EQ(refused.error().code, ErrorCode::Conflict);
    EXPECT_NE(refused.error().message.find("may be written by"), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("icacls \"" + state_dir(dir.path()).string() + "\" /inheritance:r"),
              std::string::npos)
        << refused.error().message;
    EXPECT_FALSE(fs::exists(state_dir(dir.path()) / "lock")) << "nothing was written into it";
  }
  EXPECT_GE(tried, 1) << "Everyone's grant, at least, is kept everywhere";
}
