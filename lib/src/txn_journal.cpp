#include "txn_journal.hpp"

#include <zlib.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/util.hpp"

namespace cudnn_install {
namespace {

using nlohmann::json;

std::string framed(const json& body) {
  std::string text = body.dump();
  auto crc = crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  char prefix[10];
  std::snprintf(prefix, sizeof prefix, "%08lx ", static_cast<unsigned long>(crc));
  return prefix + text + "\n";
}

// The JSON body of one line, or nullopt when the line is torn or corrupt.
std::optional<json> unframe(std::string_view line) {
  if (line.size() < 10 || line[8] != ' ') return std::nullopt;
  std::string_view text = line.substr(9);
  auto crc = crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  char expected[9];
  std::snprintf(expected, sizeof expected, "%08lx", static_cast<unsigned long>(crc));
  if (line.substr(0, 8) != expected) return std::nullopt;
  auto body = json::parse(text, nullptr, false);
  if (body.is_discarded() || !body.is_object() || !body.contains("type")) return std::nullopt;
  return body;
}

JournalStep step_from(const json& j) {
  JournalStep s;
  s.kind = j.value("kind", "place") == "remove" ? JournalStep::Kind::Remove : JournalStep::Kind::Place;
  s.target = j.value("target", "");
  s.temp = j.value("temp", "");
  s.backup = j.value("backup", "");
  return s;
}

std::string from_hex(const std::string& hex) {
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return bytes;
}

json value_json(const RegValue& v) { return {{"type", v.type}, {"bytes", util::to_hex(v.bytes)}}; }
RegValue value_from(const json& j) {
  return {j.at("type").get<std::uint32_t>(), from_hex(j.at("bytes").get<std::string>())};
}

json env_json(const EnvEdit& e) {
  json j{{"scope", e.scope == EnvScope::System ? "system" : "user"}, {"name", e.name}, {"after", value_json(e.after)}};
  j["before"] = e.before ? value_json(*e.before) : json();
  return j;
}

EnvEdit env_from(const json& j) {
  EnvEdit e;
  e.scope = j.at("scope").get<std::string>() == "system" ? EnvScope::System : EnvScope::User;
  e.name = j.at("name").get<std::string>();
  e.after = value_from(j.at("after"));
  if (!j.at("before").is_null()) e.before = value_from(j.at("before"));
  return e;
}

std::optional<BeginRecord> begin_from(const json& j) {
  try {
    BeginRecord b;
    b.id = j.at("id").get<std::string>();
    b.operation = j.value("operation", "install");
    b.archive = j.value("archive", "");
    b.sha256 = j.value("sha256", "");
    b.cudnn_version = j.value("cudnn_version", "");
    b.time = j.value("time", "");
    b.dirs_created = j.value("dirs_created", std::vector<std::string>{});
    for (const auto& s : j.at("steps")) b.steps.push_back(step_from(s));
    if (j.contains("env")) b.env_edit = env_from(j["env"]);
    b.env_entry = j.value("env_entry", "");
    return b;
  } catch (const std::exception&) {  // json errors, and std::stoi on a bad hex digit
    return std::nullopt;
  }
}

json placed_json(const PlacedFiles& placed) {
  json list = json::array();
  for (const auto& [target, p] : placed) {
    json j{{"target", target}};
    if (p.type == EntryType::Symlink)
      j["link"] = p.link_target;
    else
      j["size"] = p.size, j["crc32"] = p.crc32;
    list.push_back(std::move(j));
  }
  return list;
}

// The "placed" list of a commit record; nullopt when it is there but not as the tool writes it.
std::optional<PlacedFiles> placed_from(const json& body) {
  PlacedFiles placed;
  if (!body.contains("placed")) return placed;  // earlier builds did not record it
  try {
    for (const auto& j : body.at("placed")) {
      PlacedFile p;
      if (j.contains("link")) {
        p.type = EntryType::Symlink;
        p.link_target = j.at("link").get<std::string>();
      } else {
        p.size = j.at("size").get<std::uint64_t>();
        p.crc32 = j.at("crc32").get<std::uint32_t>();
      }
      placed[j.at("target").get<std::string>()] = p;
    }
    return placed;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string begin_record(const BeginRecord& b) {
  json steps = json::array();
  for (const auto& s : b.steps) {
    json j{{"kind", s.kind == JournalStep::Kind::Remove ? "remove" : "place"}, {"target", s.target}};
    if (!s.temp.empty()) j["temp"] = s.temp;
    if (!s.backup.empty()) j["backup"] = s.backup;
    steps.push_back(std::move(j));
  }
  json body{{"type", "begin"},
            {"id", b.id},
            {"operation", b.operation},
            {"archive", b.archive},
            {"sha256", b.sha256},
            {"cudnn_version", b.cudnn_version},
            {"time", b.time},
            {"dirs_created", b.dirs_created},
            {"steps", steps}};
  if (b.env_edit) body["env"] = env_json(*b.env_edit), body["env_entry"] = b.env_entry;
  return framed(body);
}

std::string marker_record(std::string_view type) { return framed({{"type", type}}); }

std::string commit_record(const PlacedFiles& placed) {
  return framed({{"type", "commit"}, {"placed", placed_json(placed)}});
}

std::string undo_begin_record(const std::string& id) { return framed({{"type", "undo-begin"}, {"id", id}}); }

JournalState parse_journal(std::string_view text) {
  JournalState state;
  std::size_t pos = 0;
  for (int n = 1; pos < text.size(); ++n) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) break;  // no newline: torn
    auto body = unframe(text.substr(pos, end - pos));
    if (!body) {
      if (end + 1 < text.size())  // a crash tears the last record only
        state.damage = "record " + std::to_string(n) + " is corrupt and more records follow it";
      break;
    }
    std::string type = (*body)["type"].is_string() ? (*body)["type"].get<std::string>() : "";
    if (type == "begin" && !state.begin && !state.undo_of) {
      state.begin = begin_from(*body);
      if (!state.begin) {
        state.damage = "record " + std::to_string(n) + " is an intact \"begin\" record without the fields it must have";
        break;
      }
    } else if (type == "staged" && state.begin) {
      state.staged = true;
    } else if (type == "commit" && state.begin) {
      auto placed = placed_from(*body);
      if (!placed) {
        state.damage = "record " + std::to_string(n) +
                       " is an intact \"commit\" record whose list of placed files is "
                       "not as cudnn-install writes it";
        break;
      }
      state.committed = true;
      state.placed = std::move(*placed);
    } else if (type == "undo-begin" && !state.begin && (*body).contains("id") && (*body)["id"].is_string()) {
      state.undo_of = (*body)["id"].get<std::string>();
    } else if (type == "undo-commit" && state.undo_of) {
      // Earlier builds flushed one before removing the journal; the removal alone ends an undo now.
    } else {  // intact, so not torn by a crash: the tool never writes it there
      state.damage = "record " + std::to_string(n) + " (\"" + type + "\") is out of order";
      break;
    }
    pos = end + 1;
    state.valid_bytes = pos;
  }
  return state;
}

}  // namespace cudnn_install
