#include "dsim/config/network_config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::dsim {
namespace {

constexpr uint64_t kMaxNpus = uint64_t{1} << 24;

std::vector<YAML::Node> require_list(const YAML::Node& node, std::string_view key) {
  if (!node.IsSequence() || node.size() == 0) {
    throw Error(fmt::format("key '{}' must be a non-empty list (one entry per dimension)", key));
  }
  return {node.begin(), node.end()};
}

double require_positive(const YAML::Node& node, std::string_view key, bool allow_zero) {
  double value = 0;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    throw Error(fmt::format("key '{}' entries must be numbers (line {})", key, node.Mark().line + 1));
  }
  if (!std::isfinite(value) || value < 0 || (!allow_zero && value == 0) || value > 1e12) {
    throw Error(fmt::format("key '{}' entry {} is out of range (line {})", key, value, node.Mark().line + 1));
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

NetworkConfig parse_network_config(std::string_view yaml_text, std::string_view source) {
  return with_error_context(fmt::format("network configuration {}", source), [&] {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(yaml_text));
    } catch (const YAML::Exception& e) {
      throw Error(fmt::format("invalid YAML at line {}: {}", e.mark.line + 1, e.msg));
    }
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
      else throw Error(fmt::format("unknown key '{}' (line {})", key, entry.first.Mark().line + 1));
    }
    if (topology.empty() || npus.empty() || bandwidth.empty() || latency.empty()) {
      throw Error("keys topology, npus_count, bandwidth and latency are all required");
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
      const double count = require_positive(npus[d], "npus_count", false);
      if (count != std::floor(count) || count < 2 || count > static_cast<double>(kMaxNpus)) {
        throw Error(fmt::format("dimension {}: npus_count must be an integer of at least 2, got {}", d, count));
      }
      dim.npus_count = static_cast<uint32_t>(count);
      dim.bandwidth_gbps = require_positive(bandwidth[d], "bandwidth", false);
      dim.latency_ns = require_positive(latency[d], "latency", true);
      total *= dim.npus_count;
      if (total > kMaxNpus) throw Error(fmt::format("more than {} NPUs in total", kMaxNpus));
      config.dimensions.push_back(dim);
    }
    return config;
  });
}

NetworkConfig load_network_config(const std::filesystem::path& path) {
  return parse_network_config(read_file(path), path.string());
}

}  // namespace snr::dsim
