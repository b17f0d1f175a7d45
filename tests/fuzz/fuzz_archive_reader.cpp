// Archive bytes from the fuzzer: list, inspect (safety rules, version header) and extract must
// answer with a value or an error, never crash. The first byte picks zip or tar.xz/tgz. For an
// accepted archive, two rules of issue 18 must hold: no file would be installed setuid, setgid,
// sticky or writable by others, and only cuDNN's own files have a role that installs them.
#include <cstddef>
#include <cstdint>
#include <string>

#include "archive_inspect.hpp"
#include "cudnn_install/archive.hpp"

using namespace cudnn_install;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  Container container = data[0] % 2 ? Container::Zip : Container::TarXz;
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto reader = open_archive_memory(bytes, container);
  if (!reader) return 0;
  auto listing = (*reader)->list([](const RawEntry& e) { return e.name.ends_with(".h"); }, {});
  if (!listing) return 0;
  const char* name = container == Container::Zip ? "cudnn-windows-x86_64-9.19.0.56_cuda13-archive.zip"
                                                 : "cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz";
  auto info = inspect_listing(*listing, parse_archive_name(name).value(), container);
  if (info)
    for (const auto& e : info->entries) {
      if (e.raw.type == EntryType::File && (installed_mode(e.file_name, e.raw.mode) & kUnsafeModeBits))
        __builtin_trap();
      if (e.role != Role::Unknown && e.role != Role::License && installable_but_not_cudnn(e.rel)) __builtin_trap();
    }
  std::uint64_t total = 0;
  (void)(*reader)->extract([&](const RawEntry&) -> Result<std::optional<ChunkSink>> {
    return ChunkSink([&](std::span<const char> chunk) -> Result<void> {
      total += chunk.size();
      return {};
    });
  });
  return info ? 0 : 0;
}
