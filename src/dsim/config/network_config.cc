#include "dsim/config/network_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "common/error.h"
#include "common/file_io.h"
#include "common/yaml_input.h"

namespace snr::dsim {
namespace {

std::vector<YAML::Node> require_list(const YAML::Node& node, std::string_view key) {
  if (!node.IsSequence() || node.size() == 0) {
    throw Error(fmt::format("key '{}' must be a non-empty list (one entry per dimension)", key));
  }
  return {node.begin(), node.end()};
}

// A number in [min_value, max_value]; the error names the key, the entry,
// its line, the value and the valid range with its unit.
double require_in_range(const YAML::Node& node, std::string_view key, size_t dim, double min_value,
                        double max_value, std::string_view unit) {
  double value = 0;
  // strtod first: yaml-cpp refuses a literal beyond double's range (1e400)
  // as "not a number", but it is a number out of range.
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  char* end = nullptr;
  const double parsed = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size()) {
    value = parsed;
  } else {
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      throw Error(fmt::format("key '{}' entry {} must be a number (line {})", key, dim, node.Mark().line + 1));
    }
  }
  if (!std::isfinite(value) || value < min_value || value > max_value) {
    throw Error(fmt::format("key '{}' entry {} = {} is out of range (line {}): valid {:g} .. {:g}{}", key, dim,
                            node.Scalar(), node.Mark().line + 1, min_value, max_value, unit));
  }
  return value;
}

}  // namespace

uint64_t NetworkConfig::npus_count() const {
  uint64_t total = 1;
  for (const auto& dim : dimensions) total *= dim.npus_count;
  return total;
}

std::string_view topology_name(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::kRing: return "Ring";
    case TopologyKind::kFullyConnected: return "FullyConnected";
    case TopologyKind::kSwitch: return "Switch";
  }
  return "?";
}

NetworkConfig parse_network_config(std::string_view yaml_text, std::string_view source,
                                   std::initializer_list<std::string_view> backend_keys) {
  return with_error_context(fmt::format("network configuration {}", source), [&] {
    // Syntax errors, duplicate keys and empty documents are errors with the line.
    const YAML::Node root = load_yaml_document(yaml_text, source, "an analytical network configuration");
    if (!root.IsMap()) throw Error("top level must be a mapping");
    std::vector<YAML::Node> topology, npus, bandwidth, latency;
    for (const auto& entry : root) {
      // A key may itself be a list or a map in YAML ("[2, 5]: ..."); as<>
      // would throw yaml-cpp's own exception.
      if (!entry.first.IsScalar()) {
        throw Error(fmt::format("keys must be plain names (line {})", entry.first.Mark().line + 1));
      }
      const std::string key = entry.first.as<std::string>();
      if (key == "topology") topology = require_list(entry.second, key);
      else if (key == "npus_count") npus = require_list(entry.second, key);
      else if (key == "bandwidth") bandwidth = require_list(entry.second, key);
      else if (key == "latency") latency = require_list(entry.second, key);
      else if (std::find(backend_keys.begin(), backend_keys.end(), key) != backend_keys.end()) continue;
      else throw Error(fmt::format("unknown key '{}' (line {})", key, entry.first.Mark().line + 1));
    }
    std::vector<std::string_view> missing;  // (an empty list is an error of its own above)
    for (const auto& [key, list] : {std::pair<std::string_view, const std::vector<YAML::Node>*>{"topology", &topology},
                                    {"npus_count", &npus}, {"bandwidth", &bandwidth}, {"latency", &latency}}) {
      if (list->empty()) missing.push_back(key);
    }
    if (!missing.empty()) {
      throw Error(fmt::format("missing: {} (topology, npus_count, bandwidth and latency are all required, "
                              "one entry per dimension)",
                              fmt::join(missing, ", ")));
    }
    const size_t dims = topology.size();
    if (npus.size() != dims || bandwidth.size() != dims || latency.size() != dims) {
      throw Error(fmt::format("lists differ in length: topology {}, npus_count {}, bandwidth {}, latency {}",
                              dims, npus.size(), bandwidth.size(), latency.size()));
    }
    NetworkConfig config;
    uint64_t total = 1;
    for (size_t d = 0; d < dims; ++d) {
      NetworkDimension dim;
      std::string name;
      try {
        name = topology[d].as<std::string>();
      } catch (const YAML::Exception&) {
        throw Error(fmt::format("topology entry {} must be a name", d));
      }
      if (name == "Ring") dim.topology = TopologyKind::kRing;
      else if (name == "FullyConnected") dim.topology = TopologyKind::kFullyConnected;
      else if (name == "Switch") dim.topology = TopologyKind::kSwitch;
      else throw Error(fmt::format("dimension {}: unknown topology '{}' (Ring, FullyConnected or Switch)", d, name));
      const double count = require_in_range(npus[d], "npus_count", d, 1, static_cast<double>(kMaxNetworkNpus), "");
      if (count != std::floor(count)) {
        throw Error(fmt::format("key 'npus_count' entry {} must be an integer, got {} (line {})", d,
                                npus[d].Scalar(), npus[d].Mark().line + 1));
      }
      if (count < 2 && dims > 1) {
        throw Error(fmt::format("key 'npus_count' entry {} is 1 (line {}): a dimension of one NPU is valid only as "
                                "the only dimension (a single-NPU system); remove the dimension instead",
                                d, npus[d].Mark().line + 1));
      }
      dim.npus_count = static_cast<uint32_t>(count);
      dim.bandwidth_gib_per_s = require_in_range(bandwidth[d], "bandwidth", d, kMinBandwidthGibPerS, kMaxBandwidthGibPerS, " GB/s");
      dim.latency_ns = require_in_range(latency[d], "latency", d, 0, kMaxLatencyNs, " ns");
      total *= dim.npus_count;
      if (total > kMaxNetworkNpus) {
        throw Error(fmt::format("key 'npus_count': {} NPUs in total up to dimension {}, more than the {} modelled",
                                total, d, kMaxNetworkNpus));
      }
      config.dimensions.push_back(dim);
    }
    return config;
  });
}

NetworkConfig load_network_config(const std::filesystem::path& path) {
  return parse_network_config(read_file(path), path.string());
}

}  // namespace snr::dsim
