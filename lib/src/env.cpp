// The pure half of the PATH step: the registry value's bytes, splitting and joining PATH
// without losing a byte, and where the toolkit's directory goes.
#include "cudnn_install/env.hpp"

#include "base/util.hpp"

namespace cudnn_install {

const char* to_string(EnvScope scope) {
  return scope == EnvScope::System ? "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"
                                   : "HKCU\\Environment";
}

std::u16string value_text(const RegValue& value) {
  std::u16string text;
  for (std::size_t i = 0; i + 1 < value.bytes.size(); i += 2)
    text.push_back(static_cast<char16_t>(static_cast<unsigned char>(value.bytes[i]) |
                                         (static_cast<unsigned char>(value.bytes[i + 1]) << 8)));
  while (!text.empty() && text.back() == u'\0') text.pop_back();  // the terminator(s)
  return text;
}

RegValue make_value(std::uint32_t type, std::u16string_view text) {
  RegValue value{type, {}};
  value.bytes.reserve(text.size() * 2 + 2);
  for (char16_t c : text) {
    value.bytes.push_back(static_cast<char>(c & 0xff));
    value.bytes.push_back(static_cast<char>(c >> 8));
  }
  value.bytes.append(2, '\0');
  return value;
}

std::vector<std::u16string> split_path_value(std::u16string_view text) {
  std::vector<std::u16string> entries(1);
  bool quoted = false;
  for (char16_t c : text) {
    if (c == u'"') quoted = !quoted;
    if (c == u';' && !quoted)
      entries.emplace_back();
    else
      entries.back().push_back(c);
  }
  return entries;
}

std::u16string join_path_value(const std::vector<std::u16string>& entries) {
  std::u16string text;
  for (std::size_t i = 0; i < entries.size(); ++i) text += (i ? u";" : u"") + entries[i];
  return text;
}

std::u16string comparable_entry(std::u16string_view entry) {
  std::u16string out;
  for (char16_t c : entry)
    if (c != u'"') out.push_back(c >= u'A' && c <= u'Z' ? static_cast<char16_t>(c - u'A' + u'a') : c);
  while (!out.empty() && (out.back() == u'\\' || out.back() == u'/' || out.back() == u' ')) out.pop_back();
  while (!out.empty() && out.front() == u' ') out.erase(out.begin());
  return out;
}

namespace {

std::u16string expanded(const PathQuery& q, std::u16string_view entry) {
  return q.expand ? q.expand(entry) : std::u16string(entry);
}

bool is_dir(const PathQuery& q, std::u16string_view entry) {
  return !entry.empty() && comparable_entry(expanded(q, entry)) == comparable_entry(q.dir);
}

}  // namespace

Result<PathInsertion> insert_path_entry(std::u16string_view value, const PathQuery& query) {
  auto entries = split_path_value(value);
  PathInsertion out;
  // Each entry is expanded and compared once (expansion is a system call on Windows).
  std::vector<bool> ours(entries.size());
  std::size_t copies = 0;
  std::optional<std::size_t> first_shadow, first_ours;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (entries[i].empty()) continue;
    std::u16string comparable = comparable_entry(expanded(query, entries[i]));
    ours[i] = comparable == comparable_entry(query.dir);
    if (ours[i]) {
      ++copies;
      if (!first_ours) first_ours = i;
    } else if (query.holds_other_cudnn && query.holds_other_cudnn(comparable)) {
      out.shadows.push_back(entries[i]);
      if (!first_shadow) first_shadow = i;
    }
  }
  bool duplicated = copies > 1;
  if (first_ours && (!first_shadow || *first_ours < *first_shadow) && !duplicated) {
    out.position = *first_ours;
    out.value = std::u16string(value);
    return out;  // already there, once, and nothing shadows it
  }
  out.what = first_ours ? PathInsertion::What::Moved : PathInsertion::What::Added;
  // Where it goes: before the first shadowing entry, else where it already was, else at the end.
  std::optional<std::size_t> place = first_shadow ? first_shadow : first_ours;
  std::vector<std::u16string> kept;
  std::optional<std::size_t> insert_at;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (place && i == *place) insert_at = kept.size();
    if (!ours[i]) kept.push_back(entries[i]);
  }
  if (!insert_at) insert_at = !kept.empty() && kept.back().empty() ? kept.size() - 1 : kept.size();
  if (kept.size() == 1 && kept[0].empty()) kept.clear(), insert_at = 0;  // an empty PATH
  kept.insert(kept.begin() + static_cast<std::ptrdiff_t>(*insert_at), query.dir);
  out.position = *insert_at;
  out.value = join_path_value(kept);
  if (out.value.size() > kMaxPathChars)
    return fail(ErrorCode::EnvLimit, "PATH would be " + std::to_string(out.value.size()) +
                                         " characters, over Windows' limit of " + std::to_string(kMaxPathChars) +
                                         "; remove entries you no longer need, or pass --no-path");
  return out;
}

std::u16string remove_path_entry(std::u16string_view value, const PathQuery& query) {
  std::vector<std::u16string> kept;
  for (auto& e : split_path_value(value))
    if (!is_dir(query, e)) kept.push_back(std::move(e));
  return join_path_value(kept);
}

}  // namespace cudnn_install
