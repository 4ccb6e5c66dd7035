// Search engines by name. Each engine file provides an EngineInfo: its
// name, what it does, the configuration keys it reads (default, range,
// integer or not) and a factory; the registry resolves a user's key/value
// pairs against those declarations, so no code outside an engine's file
// branches on its name. Adding an engine: a new file with its EngineInfo
// and one line in registry.cc (a self-registering static object would be
// dropped by the linker from a static library).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pathfind/search/engine.h"

namespace snr::pathfind::search {

struct ConfigKey {
  std::string name;
  std::string help;
  double default_value = 0;
  double min = 0;  // inclusive
  double max = 0;  // inclusive
  bool integer = false;
};

struct EngineInfo {
  std::string name;
  std::string description;
  std::vector<ConfigKey> keys;  // every engine declares "starts"
  std::function<std::unique_ptr<SearchEngine>(const EngineConfig&)> make;
  // Designs one start may evaluate at most under `config`, for a vector of
  // `parameters` entries: what a search is refused on before it starts.
  std::function<double(const EngineConfig& config, size_t parameters)> max_evaluations_per_start;
};

// Every engine, in name order.
const std::vector<EngineInfo>& engines();
// Throws snr::Error naming the unknown engine and the known ones.
const EngineInfo& find_engine(std::string_view name);
// Every declared key with the given value or its default. Throws snr::Error
// naming the key: one the engine does not declare (and the ones it does),
// a value outside its range, a fraction given to an integer key.
EngineConfig resolve_config(const EngineInfo& engine, const std::map<std::string, double>& given);

// Each engine's declaration (one file each).
EngineInfo gd_engine_info();
EngineInfo random_engine_info();

}  // namespace snr::pathfind::search
