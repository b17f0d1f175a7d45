#include "cudnn_install/integrity.hpp"

#include <nlohmann/json.hpp>

#include "base/util.hpp"

namespace cudnn_install {
namespace {

constexpr KnownArchive kKnown[] = {
#include "known_archives.inc"
};

std::uint64_t size_of(const nlohmann::json& v) {
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_string()) return util::leading_uint64(v.get<std::string>()).value_or(0);  // 0: not given
  return 0;
}

void add_if_archive(const nlohmann::json& obj, std::vector<ManifestEntry>& out) {
  if (!obj.is_object() || !obj.contains("relative_path") || !obj["relative_path"].is_string()) return;
  ManifestEntry e;
  e.relative_path = obj["relative_path"].get<std::string>();
  e.file_name = e.relative_path.substr(e.relative_path.rfind('/') + 1);
  e.sha256 = obj.value("sha256", "");
  if (obj.contains("size")) e.size = size_of(obj["size"]);
  out.push_back(std::move(e));
}

}  // namespace

std::span<const KnownArchive> known_archives() { return kKnown; }

Result<std::vector<ManifestEntry>> parse_manifest(const std::string& json_text) {
  auto json = nlohmann::json::parse(json_text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return fail(ErrorCode::Usage, "the manifest is not valid JSON; pass NVIDIA's redistrib_<version>.json");
  std::vector<ManifestEntry> entries;
  for (const auto& [product, body] : json.items()) {
    if (!body.is_object()) continue;
    for (const auto& [platform, value] : body.items()) {
      add_if_archive(value, entries);  // flat schema, and the flat half of a mixed entry
      if (value.is_object())
        for (const auto& [variant, inner] : value.items()) add_if_archive(inner, entries);  // cuda_variant schema
    }
  }
  if (entries.empty())
    return fail(ErrorCode::Usage, "the manifest lists no archives (is it an NVIDIA redistrib manifest?)");
  return entries;
}

Result<IntegrityCheck> check_integrity(const std::string& file_name, const std::string& sha256, std::uint64_t size,
                                       const std::optional<std::vector<ManifestEntry>>& manifest,
                                       const std::string& manifest_name) {
  std::optional<std::string> expected;
  std::uint64_t expected_size = 0;
  std::string source;
  if (manifest) {
    for (const auto& e : *manifest) {
      if (e.file_name != file_name) continue;
      expected = e.sha256;
      expected_size = e.size;
      source = "manifest " + manifest_name;
    }
  }
  if (!expected) {
    for (const auto& k : known_archives()) {
      if (file_name != k.file_name) continue;
      expected = k.sha256;
      expected_size = k.size;
      source = "the table of known cuDNN archives";
    }
  }
  IntegrityCheck check;
  check.sha256 = sha256;
  if (!expected) {
    check.note =
        "'" + file_name + "' is not in " + (manifest ? "the manifest or " : std::string()) +
        "the table of known cuDNN archives: its sha256 cannot be checked. Pass NVIDIA's redistrib_<version>.json "
        "with --manifest to check it.";
    return check;
  }
  if (*expected != sha256 || (expected_size && size && expected_size != size))
    return fail(ErrorCode::IntegrityFailure,
                "'" + file_name + "' does not match " + source + ": sha256 " + sha256 + ", expected " + *expected +
                    ". The download is corrupt or was tampered with: download it again from NVIDIA.",
                file_name);
  check.verdict = IntegrityCheck::Verdict::Match;
  check.source = source;
  return check;
}

}  // namespace cudnn_install
