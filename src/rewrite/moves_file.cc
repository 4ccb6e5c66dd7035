#include "rewrite/moves_file.h"

#include <charconv>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/json_input.h"

namespace snr::rewrite {
namespace {

uint64_t parse_pc(const nlohmann::json& value, const std::string& where) {
  if (value.is_number_unsigned()) return value.get<uint64_t>();
  if (!value.is_string()) throw Error(fmt::format("{}: expected a pc (number or \"0x...\" string)", where));
  const std::string text = value.get<std::string>();
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* first = text.data() + (hex ? 2 : 0);
  const char* last = text.data() + text.size();
  uint64_t pc = 0;
  const auto [end, ec] = std::from_chars(first, last, pc, hex ? 16 : 10);
  if (ec != std::errc() || end != last || first == last) {
    throw Error(fmt::format("{}: \"{}\" is not a pc", where, text));
  }
  return pc;
}

}  // namespace

std::vector<analyze::CodeMove> parse_moves_json(std::string_view text, std::string_view origin) {
  nlohmann::json doc = parse_json_input(text, origin);
  if (!doc.is_object() || !doc.contains("moves") || !doc["moves"].is_array()) {
    throw Error(fmt::format("{}: expected an object with a \"moves\" array", origin));
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "moves") throw Error(fmt::format("{}: unknown key \"{}\"", origin, key));
  }
  std::vector<analyze::CodeMove> moves;
  for (size_t i = 0; i < doc["moves"].size(); ++i) {
    const nlohmann::json& entry = doc["moves"][i];
    const std::string where = fmt::format("{}: move {}", origin, i + 1);
    if (!entry.is_object()) throw Error(where + ": expected an object");
    for (const auto& [key, value] : entry.items()) {
      if (key != "pcs" && key != "before_pc") throw Error(fmt::format("{}: unknown key \"{}\"", where, key));
    }
    if (!entry.contains("pcs") || !entry["pcs"].is_array() || entry["pcs"].empty()) {
      throw Error(where + ": \"pcs\" must be a non-empty array");
    }
    if (!entry.contains("before_pc")) throw Error(where + ": \"before_pc\" is missing");
    analyze::CodeMove move;
    for (size_t k = 0; k < entry["pcs"].size(); ++k) {
      move.pcs.push_back(parse_pc(entry["pcs"][k], fmt::format("{}: pcs[{}]", where, k)));
    }
    move.before_pc = parse_pc(entry["before_pc"], where + ": before_pc");
    moves.push_back(std::move(move));
  }
  return moves;
}

std::string moves_to_json(const std::vector<analyze::CodeMove>& moves) {
  nlohmann::json list = nlohmann::json::array();
  for (const analyze::CodeMove& move : moves) {
    nlohmann::json pcs = nlohmann::json::array();
    for (uint64_t pc : move.pcs) pcs.push_back(fmt::format("{:#x}", pc));
    list.push_back({{"pcs", pcs}, {"before_pc", fmt::format("{:#x}", move.before_pc)}});
  }
  return nlohmann::json{{"moves", list}}.dump(2) + "\n";
}

}  // namespace snr::rewrite
