// The registry behind EnvStore. The value is read raw with RegQueryValueExW (never through an
// API that expands %VARS% or changes the type) and written back in one RegSetValueExW call with
// its type and terminating NUL. WM_SETTINGCHANGE tells Explorer so new shells see the change.
#include <windows.h>

#include "base/win32_util.hpp"
#include "cudnn_install/env.hpp"

namespace cudnn_install {
namespace {

HKEY hive(EnvScope scope) { return scope == EnvScope::System ? HKEY_LOCAL_MACHINE : HKEY_CURRENT_USER; }
const wchar_t* subkey(EnvScope scope) {
  return scope == EnvScope::System ? L"SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
                                   : L"Environment";
}

std::unexpected<Error> registry_error(const std::string& what, EnvScope scope, LONG rc) {
  std::string hint =
      rc == ERROR_ACCESS_DENIED && scope == EnvScope::System
          ? " (the system PATH needs an administrator: " + std::string(win32::kElevationHint) + ", or drop --system)"
          : "";
  return fail(ErrorCode::Io, what + " " + to_string(scope) + ": " + win32::error_text(static_cast<DWORD>(rc)) + hint);
}

class Key {
 public:
  ~Key() {
    if (key_) RegCloseKey(key_);
  }
  LONG open(EnvScope scope, REGSAM access) { return RegOpenKeyExW(hive(scope), subkey(scope), 0, access, &key_); }
  HKEY get() const { return key_; }

 private:
  HKEY key_ = nullptr;
};

class RegistryEnvStore final : public EnvStore {
 public:
  Result<std::optional<RegValue>> read(EnvScope scope, std::string_view name) override {
    Key key;
    if (LONG rc = key.open(scope, KEY_QUERY_VALUE); rc != ERROR_SUCCESS)
      return registry_error("cannot open", scope, rc);
    std::wstring value_name = win32::widen(name);
    RegValue value;
    DWORD type = 0, size = 4096;
    while (true) {
      value.bytes.resize(size);
      LONG rc = RegQueryValueExW(key.get(), value_name.c_str(), nullptr, &type,
                                 reinterpret_cast<BYTE*>(value.bytes.data()), &size);
      if (rc == ERROR_MORE_DATA) continue;  // size now holds what is needed (the value may have grown)
      if (rc == ERROR_FILE_NOT_FOUND) return std::optional<RegValue>();
      if (rc != ERROR_SUCCESS) return registry_error("cannot read " + std::string(name) + " in", scope, rc);
      break;
    }
    value.bytes.resize(size);
    value.type = type;
    return std::optional(value);
  }

  Result<void> write(EnvScope scope, std::string_view name, const RegValue& value) override {
    Key key;
    if (LONG rc = key.open(scope, KEY_SET_VALUE); rc != ERROR_SUCCESS) return registry_error("cannot open", scope, rc);
    LONG rc = RegSetValueExW(key.get(), win32::widen(name).c_str(), 0, value.type,
                             reinterpret_cast<const BYTE*>(value.bytes.data()), static_cast<DWORD>(value.bytes.size()));
    if (rc != ERROR_SUCCESS) return registry_error("cannot write " + std::string(name) + " in", scope, rc);
    return {};
  }

  Result<void> erase(EnvScope scope, std::string_view name) override {
    Key key;
    if (LONG rc = key.open(scope, KEY_SET_VALUE); rc != ERROR_SUCCESS) return registry_error("cannot open", scope, rc);
    LONG rc = RegDeleteValueW(key.get(), win32::widen(name).c_str());
    if (rc != ERROR_SUCCESS && rc != ERROR_FILE_NOT_FOUND)
      return registry_error("cannot remove " + std::string(name) + " from", scope, rc);
    return {};
  }

  void broadcast_change() override {
    DWORD_PTR result = 0;
    SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, 0, reinterpret_cast<LPARAM>(L"Environment"), SMTO_ABORTIFHUNG,
                        5000, &result);
  }
};

}  // namespace

std::unique_ptr<EnvStore> make_registry_env_store() { return std::make_unique<RegistryEnvStore>(); }

}  // namespace cudnn_install
