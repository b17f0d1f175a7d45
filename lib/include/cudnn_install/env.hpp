// Stage 6 (Windows): the PATH value in the registry. The value is handled as the registry stores
// it: its type (REG_SZ or REG_EXPAND_SZ) and its raw UTF-16 bytes, never expanded, so that
// %SystemRoot% and friends survive and --rollback can put back the exact bytes.
//
// The editing itself is pure (insert_path_entry) and tested on every platform; the registry is
// behind EnvStore (env_win32.cpp) and faked in tests.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudnn_install/error.hpp"

namespace cudnn_install {

// HKCU\Environment (the default) or, with --system, HKLM\...\Session Manager\Environment.
enum class EnvScope { User, System };
const char* to_string(EnvScope scope);

inline constexpr std::uint32_t kRegSz = 1;           // REG_SZ
inline constexpr std::uint32_t kRegExpandSz = 2;     // REG_EXPAND_SZ
inline constexpr std::size_t kMaxPathChars = 32767;  // the limit of an environment variable

// A registry value exactly as stored.
struct RegValue {
  std::uint32_t type = kRegExpandSz;
  std::string bytes;  // raw little-endian UTF-16, with the terminating NUL as the registry has it
  bool operator==(const RegValue&) const = default;
};

class EnvStore {
 public:
  virtual ~EnvStore() = default;
  // nullopt when the value does not exist.
  virtual Result<std::optional<RegValue>> read(EnvScope scope, std::string_view name) = 0;
  virtual Result<void> write(EnvScope scope, std::string_view name, const RegValue& value) = 0;
  virtual Result<void> erase(EnvScope scope, std::string_view name) = 0;
  // Tells running programs (Explorer, new shells) that the environment changed.
  virtual void broadcast_change() = 0;
};

// The registry of this machine (Windows builds only).
std::unique_ptr<EnvStore> make_registry_env_store();

// One journalled change of a value: what it was (nullopt: absent) and what it becomes.
struct EnvEdit {
  EnvScope scope = EnvScope::User;
  std::string name = "Path";
  std::optional<RegValue> before;
  RegValue after;
};

// UTF-16 text <-> the registry's bytes (little-endian, NUL-terminated).
std::u16string value_text(const RegValue& value);
RegValue make_value(std::uint32_t type, std::u16string_view text);

// PATH split on ';', where a ';' inside double quotes belongs to the entry. Joining the parts
// with ';' gives back the original text exactly (empty entries and a trailing ';' included).
std::vector<std::u16string> split_path_value(std::u16string_view text);
std::u16string join_path_value(const std::vector<std::u16string>& entries);
// The form entries are compared in: quotes removed, trailing '\' and '/' trimmed, ASCII case folded.
std::u16string comparable_entry(std::u16string_view entry);

struct PathQuery {
  std::u16string dir;  // the directory to put on PATH (the toolkit's DLL directory)
  // Expands %VAR% in a copy of an entry, for comparing only (the value itself is never expanded).
  std::function<std::u16string(std::u16string_view)> expand;
  // True when the (expanded) directory holds a cudnn64_N.dll other than the toolkit's.
  std::function<bool(std::u16string_view)> holds_other_cudnn;
};

struct PathInsertion {
  enum class What { AlreadyFirst, Added, Moved };
  What what = What::AlreadyFirst;
  std::u16string value;                 // the new PATH text (== the old one for AlreadyFirst)
  std::vector<std::u16string> shadows;  // entries holding another cudnn64_N.dll, in PATH order
  std::size_t position = 0;             // index of the toolkit's entry in the new value
};

// Puts `query.dir` on PATH once: before the first entry that holds another cuDNN DLL, else at the
// end (before a trailing empty entry, so a trailing ';' stays). Entries equal to it (compared
// whole, after expansion) are dropped; every other entry keeps its exact text. Refuses a result
// longer than kMaxPathChars.
Result<PathInsertion> insert_path_entry(std::u16string_view value, const PathQuery& query);
// Removes the entries equal to `dir` (uninstall of the PATH change when the value moved on since).
std::u16string remove_path_entry(std::u16string_view value, const PathQuery& query);

}  // namespace cudnn_install
