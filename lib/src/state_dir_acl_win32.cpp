#include "state_dir_acl_win32.hpp"

#include <aclapi.h>
#include <sddl.h>

#include <string>

#include "base/win32_util.hpp"
#include "state_lock_common.hpp"

namespace cudnn_install::win32 {
namespace {

// The rights that let someone plant or replace what the directory holds.
constexpr ACCESS_MASK kWriteRights = FILE_ADD_FILE | FILE_ADD_SUBDIRECTORY | FILE_DELETE_CHILD | DELETE | WRITE_DAC |
                                     WRITE_OWNER | GENERIC_WRITE | GENERIC_ALL;

bool is_any_of(PSID sid, std::initializer_list<WELL_KNOWN_SID_TYPE> types) {
  for (auto type : types)
    if (IsWellKnownSid(sid, type)) return true;
  return false;
}

// The SID of the user this process runs as, as text ("S-1-5-21-..."); empty when unknown.
std::wstring current_user_sid() {
  HANDLE token = nullptr;
  if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token)) return {};
  Handle owned(token);
  DWORD size = 0;
  GetTokenInformation(token, TokenUser, nullptr, 0, &size);
  std::string buffer(size, '\0');
  if (size == 0 || !GetTokenInformation(token, TokenUser, buffer.data(), size, &size)) return {};
  wchar_t* text = nullptr;
  if (!ConvertSidToStringSidW(reinterpret_cast<TOKEN_USER*>(buffer.data())->User.Sid, &text)) return {};
  std::wstring sid = text;
  LocalFree(text);
  return sid;
}

std::wstring sid_text(PSID sid) {
  wchar_t* text = nullptr;
  if (!ConvertSidToStringSidW(sid, &text)) return {};
  std::wstring out = text;
  LocalFree(text);
  return out;
}

// "BUILTIN\Users", or the SID as text when it has no name here.
std::string account_name(PSID sid) {
  wchar_t name[256], domain[256];
  DWORD name_size = 256, domain_size = 256;
  SID_NAME_USE use;
  if (LookupAccountSidW(nullptr, sid, name, &name_size, domain, &domain_size, &use))
    return narrow(domain_size ? std::wstring(domain) + L"\\" + name : std::wstring(name));
  return narrow(sid_text(sid));
}

bool trusted_owner(PSID owner) {
  static const std::wstring kTrustedInstaller = L"S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464";
  if (is_any_of(owner, {WinBuiltinAdministratorsSid, WinLocalSystemSid})) return true;
  std::wstring text = sid_text(owner);
  return !text.empty() && (text == current_user_sid() || text == kTrustedInstaller);
}

std::string icacls_fix(const std::filesystem::path& dir) {
  return " (to keep it, run from an Administrator PowerShell: icacls \"" + dir.string() +
         "\" /inheritance:r /grant:r \"*S-1-5-18:(OI)(CI)F\" \"*S-1-5-32-544:(OI)(CI)F\" "
         "\"*S-1-5-32-545:(OI)(CI)RX\")";
}

}  // namespace

SecurityDescriptor safe_state_dir_descriptor() {
  std::wstring me = current_user_sid();
  std::wstring sddl = L"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FRFX;;;BU)";
  if (!me.empty()) sddl += L"(A;OICI;FA;;;" + me + L")";
  PSECURITY_DESCRIPTOR sd = nullptr;
  if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl.c_str(), SDDL_REVISION_1, &sd, nullptr))
    return SecurityDescriptor(nullptr, &LocalFree);
  return SecurityDescriptor(sd, &LocalFree);
}

Result<void> check_state_dir_acl(const std::filesystem::path& dir) {
  PSID owner = nullptr;
  PACL dacl = nullptr;
  PSECURITY_DESCRIPTOR sd = nullptr;
  DWORD err = GetNamedSecurityInfoW(dir.c_str(), SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION,
                                    &owner, nullptr, &dacl, nullptr, &sd);
  if (err != ERROR_SUCCESS)
    return fail(ErrorCode::Io, "cannot read the permissions of '" + dir.string() + "': " + error_text(err),
                dir.string());
  SecurityDescriptor owned(sd, &LocalFree);
  if (owner && !trusted_owner(owner))
    return untrusted_state(dir, "is owned by " + account_name(owner) +
                                    ", not by you, the Administrators, SYSTEM or TrustedInstaller" + icacls_fix(dir));
  if (!dacl) return untrusted_state(dir, "has no access control list, so everyone may write it" + icacls_fix(dir));
  for (DWORD i = 0; i < dacl->AceCount; ++i) {
    void* ace = nullptr;
    if (!GetAce(dacl, i, &ace)) continue;
    auto* header = static_cast<ACE_HEADER*>(ace);
    if (header->AceType != ACCESS_ALLOWED_ACE_TYPE || (header->AceFlags & INHERIT_ONLY_ACE)) continue;
    auto* allowed = static_cast<ACCESS_ALLOWED_ACE*>(ace);
    PSID sid = &allowed->SidStart;
    if ((allowed->Mask & kWriteRights) &&
        is_any_of(sid, {WinWorldSid, WinAuthenticatedUserSid, WinBuiltinUsersSid, WinInteractiveSid, WinAnonymousSid}))
      return untrusted_state(
          dir, "may be written by " + account_name(sid) + " (its access control list allows it)" + icacls_fix(dir));
  }
  return {};
}

}  // namespace cudnn_install::win32
