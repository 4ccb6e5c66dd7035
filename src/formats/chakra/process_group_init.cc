#include "formats/chakra/process_group_init.h"

#include <nlohmann/json.hpp>

namespace snr::chakra {

std::string process_group_init_values(const std::vector<ProcessGroupMembers>& groups) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& g : groups) list.push_back({{"pg_name", g.name}, {"ranks", g.ranks}});
  // A single quote can only be inside a JSON string here: escaped, it
  // cannot end the repr's quoting.
  std::string text;
  for (char c : list.dump(-1, ' ', true)) {
    if (c == '\'') {
      text += "\\u0027";
    } else {
      text += c;
    }
  }
  return "['" + text + "']";
}

}  // namespace snr::chakra
