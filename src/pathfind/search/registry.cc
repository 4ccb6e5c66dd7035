#include "pathfind/search/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace snr::pathfind::search {

const std::vector<EngineInfo>& engines() {
  static const std::vector<EngineInfo> list = [] {
    std::vector<EngineInfo> all{gd_engine_info(), random_engine_info()};
    std::sort(all.begin(), all.end(), [](const EngineInfo& a, const EngineInfo& b) { return a.name < b.name; });
    return all;
  }();
  return list;
}

const EngineInfo& find_engine(std::string_view name) {
  std::string known;
  for (const EngineInfo& e : engines()) {
    if (e.name == name) return e;
    known += (known.empty() ? "" : ", ") + e.name;
  }
  throw Error(fmt::format("search strategy '{}' is not known (known: {})", name, known));
}

EngineConfig resolve_config(const EngineInfo& engine, const std::map<std::string, double>& given) {
  EngineConfig config;
  for (const ConfigKey& key : engine.keys) config[key.name] = key.default_value;
  for (const auto& [name, value] : given) {
    // clang before 16 cannot capture a structured binding.
    auto key = std::find_if(engine.keys.begin(), engine.keys.end(),
                            [&wanted = name](const ConfigKey& k) { return k.name == wanted; });
    if (key == engine.keys.end()) {
      std::string known;
      for (const ConfigKey& k : engine.keys) known += (known.empty() ? "" : ", ") + k.name;
      throw Error(fmt::format("search strategy '{}': {}: not a key of this strategy (keys: {})", engine.name, name,
                              known));
    }
    if (!(value >= key->min && value <= key->max)) {
      throw Error(fmt::format("search strategy '{}': {}: {} is outside [{}, {}]", engine.name, name, value, key->min,
                              key->max));
    }
    if (key->integer && value != std::floor(value)) {
      throw Error(fmt::format("search strategy '{}': {}: {} is not a whole number", engine.name, name, value));
    }
    config[name] = value;
  }
  return config;
}

}  // namespace snr::pathfind::search
