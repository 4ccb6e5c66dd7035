#include "dsim/network/ns3/ns3_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "common/error.h"
#include "common/yaml_input.h"
#include "dsim/network/ns3/ns3_backend.h"
#include "dsim/network/registry.h"

namespace snr::dsim {
namespace {

int line_of(const YAML::Node& node) { return node.Mark().line + 1; }

// A number in [min_value, max_value]; the error names where it is, the
// value and the range with its unit.
double number_in_range(const YAML::Node& node, std::string_view where, double min_value, double max_value,
                       std::string_view unit) {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  char* end = nullptr;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw Error(fmt::format("{} must be a number (line {})", where, line_of(node)));
  }
  if (!std::isfinite(value) || value < min_value || value > max_value) {
    throw Error(fmt::format("{} = {} is out of range (line {}): valid {:g} .. {:g}{}", where, text, line_of(node),
                            min_value, max_value, unit));
  }
  return value;
}

uint64_t integer_in_range(const YAML::Node& node, std::string_view where, uint64_t min_value, uint64_t max_value) {
  const double value =
      number_in_range(node, where, static_cast<double>(min_value), static_cast<double>(max_value), "");
  if (value != std::floor(value)) {
    throw Error(fmt::format("{} must be a whole number, got {} (line {})", where, node.Scalar(), line_of(node)));
  }
  return static_cast<uint64_t>(value);
}

EcmpMode parse_ecmp(const YAML::Node& node) {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  for (const EcmpMode mode : {EcmpMode::kFlow, EcmpMode::kPacket, EcmpMode::kFirst}) {
    if (text == ecmp_mode_name(mode)) return mode;
  }
  throw Error(fmt::format("ecmp = '{}' (line {}): valid flow, packet or first", text, line_of(node)));
}

Ns3Link parse_link(const YAML::Node& node, size_t index, uint32_t nodes) {
  const std::string where = fmt::format("links[{}]", index);
  if (!node.IsSequence() || node.size() != 4) {
    throw Error(fmt::format("{} must be [from, to, Gb/s, latency ns] (line {})", where, line_of(node)));
  }
  Ns3Link link;
  link.from = static_cast<uint32_t>(integer_in_range(node[0], where + " from", 0, nodes - 1));
  link.to = static_cast<uint32_t>(integer_in_range(node[1], where + " to", 0, nodes - 1));
  if (link.from == link.to) {
    throw Error(fmt::format("{} joins node {} to itself (line {})", where, link.from, line_of(node)));
  }
  link.bandwidth_gbit_per_s =
      number_in_range(node[2], where + " bandwidth", kMinNs3BandwidthGbitPerS, kMaxNs3BandwidthGbitPerS, " Gb/s");
  link.latency_ns = number_in_range(node[3], where + " latency", 0, kMaxNs3LatencyNs, " ns");
  return link;
}

// Every NPU must reach every other one: a partitioned fabric would leave a
// message undeliverable in the middle of a run.
void check_connected(const Ns3NetworkConfig& config) {
  std::vector<std::vector<uint32_t>> adjacent(config.node_count());
  for (const Ns3Link& link : config.links) {
    adjacent[link.from].push_back(link.to);
    adjacent[link.to].push_back(link.from);
  }
  std::vector<bool> seen(config.node_count(), false);
  std::vector<uint32_t> frontier{0};
  seen[0] = true;
  while (!frontier.empty()) {
    const uint32_t node = frontier.back();
    frontier.pop_back();
    for (const uint32_t next : adjacent[node]) {
      if (!seen[next]) {
        seen[next] = true;
        frontier.push_back(next);
      }
    }
  }
  for (uint32_t npu = 1; npu < config.npus; ++npu) {
    if (!seen[npu]) {
      throw Error(fmt::format("NPU {} ({}) cannot reach NPU 0 ({}) over the links given", npu, config.node_name(npu),
                              config.node_name(0)));
    }
  }
}

// A YAML double-quoted scalar that reads back as `text` exactly.
std::string yaml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

std::string_view ecmp_mode_name(EcmpMode mode) {
  switch (mode) {
    case EcmpMode::kFlow: return "flow";
    case EcmpMode::kPacket: return "packet";
    case EcmpMode::kFirst: return "first";
  }
  return "?";
}

std::string Ns3NetworkConfig::node_name(uint32_t node) const {
  if (node < node_names.size()) return node_names[node];
  return node < npus ? fmt::format("npu{}", node) : fmt::format("switch{}", node - npus);
}

Ns3NetworkConfig parse_ns3_network(std::string_view text, std::string_view source) {
  return with_error_context(fmt::format("ns-3 network configuration {}", source), [&] {
    const YAML::Node root = load_yaml_document(text, source, "an ns-3 network configuration");
    if (!root.IsMap()) throw Error("top level must be a mapping");
    Ns3NetworkConfig config;
    std::optional<YAML::Node> names, links;
    bool have_npus = false;
    for (const auto& entry : root) {
      if (!entry.first.IsScalar()) throw Error(fmt::format("keys must be plain names (line {})", line_of(entry.first)));
      const std::string key = entry.first.Scalar();
      const YAML::Node& value = entry.second;
      if (key == "npus") {
        config.npus = static_cast<uint32_t>(integer_in_range(value, key, 1, kMaxNs3Nodes));
        have_npus = true;
      } else if (key == "switches") {
        config.switches = static_cast<uint32_t>(integer_in_range(value, key, 0, kMaxNs3Nodes));
      } else if (key == "node_names") {
        names = value;
      } else if (key == "links") {
        links = value;
      } else if (key == "packet_payload_bytes") {
        config.packet_payload_bytes =
            static_cast<uint32_t>(integer_in_range(value, key, kMinNs3PayloadBytes, kMaxNs3PayloadBytes));
      } else if (key == "port_queue_bytes") {
        config.port_queue_bytes = integer_in_range(value, key, 2 * uint64_t{kMaxNs3PayloadBytes}, kMaxNs3QueueBytes);
      } else if (key == "ecmp") {
        config.ecmp = parse_ecmp(value);
      } else if (key == "ecmp_seed") {
        config.ecmp_seed = integer_in_range(value, key, 0, uint64_t{1} << 53);
      } else if (key == "logical_dims") {
        if (!value.IsSequence() || value.size() == 0) {
          throw Error(fmt::format("logical_dims must be a non-empty list of dimension sizes (line {})", line_of(value)));
        }
        for (size_t d = 0; d < value.size(); ++d) {
          config.logical_dims.push_back(static_cast<uint32_t>(
              integer_in_range(value[d], fmt::format("logical_dims[{}]", d), value.size() == 1 ? 1 : 2, kMaxNs3Nodes)));
        }
      } else {
        throw Error(fmt::format("unknown key '{}' (line {})", key, line_of(entry.first)));
      }
    }
    if (!have_npus) throw Error("key 'npus' is required");
    if (uint64_t{config.npus} + config.switches > kMaxNs3Nodes) {
      throw Error(fmt::format("npus + switches = {} nodes, more than the {} modelled",
                              uint64_t{config.npus} + config.switches, kMaxNs3Nodes));
    }
    if (!config.logical_dims.empty()) {
      uint64_t product = 1;
      for (const uint32_t size : config.logical_dims) product *= size;
      if (product != config.npus) {
        throw Error(fmt::format("logical_dims multiply to {} NPUs, but npus is {}", product, config.npus));
      }
    }
    if (names) {
      if (!names->IsSequence() || names->size() != config.node_count()) {
        throw Error(fmt::format("node_names must list one name per node ({}) (line {})", config.node_count(),
                                line_of(*names)));
      }
      std::set<std::string> seen;
      for (size_t i = 0; i < names->size(); ++i) {
        const YAML::Node name = (*names)[i];
        if (!name.IsScalar() || name.Scalar().empty()) {
          throw Error(fmt::format("node_names[{}] must be a non-empty name (line {})", i, line_of(name)));
        }
        if (!seen.insert(name.Scalar()).second) {
          throw Error(fmt::format("node_names[{}] '{}' is given twice (line {})", i, name.Scalar(), line_of(name)));
        }
        config.node_names.push_back(name.Scalar());
      }
    }
    if (!links || !links->IsSequence() || links->size() == 0) {
      if (config.npus > 1) throw Error("key 'links' must list the links ([from, to, Gb/s, latency ns])");
    } else {
      // Parallel links between two nodes are allowed: they are separate
      // ports, and ECMP spreads messages over them.
      for (size_t i = 0; i < links->size(); ++i) config.links.push_back(parse_link((*links)[i], i, config.node_count()));
    }
    for (uint32_t npu = 0; npu < config.npus && config.npus > 1; ++npu) {
      const bool linked = std::any_of(config.links.begin(), config.links.end(),
                                      [&](const Ns3Link& l) { return l.from == npu || l.to == npu; });
      if (!linked) throw Error(fmt::format("NPU {} ({}) has no link", npu, config.node_name(npu)));
    }
    if (config.npus > 1) check_connected(config);
    return config;
  });
}

std::string ns3_network_yaml(const Ns3NetworkConfig& config, std::string_view comment) {
  std::string out;
  size_t at = 0;
  while (at < comment.size()) {
    const size_t end = std::min(comment.find('\n', at), comment.size());
    out += fmt::format("# {}\n", comment.substr(at, end - at));
    at = end + 1;
  }
  out += fmt::format("npus: {}  # nodes 0..{} are the NPUs, in rank order\n", config.npus, config.npus - 1);
  out += fmt::format("switches: {}  # the other nodes forward packets\n", config.switches);
  if (!config.node_names.empty()) {
    out += "node_names:\n";
    for (const std::string& name : config.node_names) out += fmt::format("  - {}\n", yaml_quoted(name));
  }
  out += "links:  # [from, to, bandwidth Gb/s (10^9 bit/s), latency ns]\n";
  for (const Ns3Link& link : config.links) {
    out += fmt::format("  - [{}, {}, {}, {}]\n", link.from, link.to, link.bandwidth_gbit_per_s, link.latency_ns);
  }
  out += fmt::format("packet_payload_bytes: {}\nport_queue_bytes: {}\necmp: {}\necmp_seed: {}\n",
                     config.packet_payload_bytes, config.port_queue_bytes, ecmp_mode_name(config.ecmp),
                     config.ecmp_seed);
  if (!config.logical_dims.empty()) out += fmt::format("logical_dims: [{}]\n", fmt::join(config.logical_dims, ", "));
  return out;
}

NetworkConfig ns3_logical_topology(std::shared_ptr<const Ns3NetworkConfig> config) {
  double fastest_gbit_per_s = 0;
  for (const Ns3Link& link : config->links) {
    if (link.from < config->npus || link.to < config->npus) {
      fastest_gbit_per_s = std::max(fastest_gbit_per_s, link.bandwidth_gbit_per_s);
    }
  }
  NetworkConfig logical;
  const std::vector<uint32_t> sizes =
      config->logical_dims.empty() ? std::vector<uint32_t>{config->npus} : config->logical_dims;
  for (const uint32_t size : sizes) {
    NetworkDimension dim;
    dim.topology = TopologyKind::kSwitch;
    dim.npus_count = size;
    // GB/s of 2^30 bytes, as the analytical configuration counts them.
    dim.bandwidth_gib_per_s = std::max(fastest_gbit_per_s * 1e9 / 8 / 1073741824.0, kMinBandwidthGibPerS);
    logical.dimensions.push_back(dim);
  }
  logical.backend_details = std::move(config);
  return logical;
}

NetworkBackendSpec ns3_spec() {
  NetworkBackendSpec spec;
  spec.name = "ns3";
  spec.summary = ns3_available()
                     ? "packet level on ns-3: point-to-point links, output-port queues, ECMP, per-message completion"
                     : "packet level on ns-3 (not in this build: " + ns3_how_to_enable() + ")";
  spec.config_keys = {"npus",     "switches",  "node_names", "links",       "packet_payload_bytes",
                      "port_queue_bytes", "ecmp", "ecmp_seed", "logical_dims"};
  spec.parse_config = [](std::string_view text, std::string_view source) {
    return ns3_logical_topology(std::make_shared<const Ns3NetworkConfig>(parse_ns3_network(text, source)));
  };
  spec.create = [](const NetworkConfig& config, EventLoop& loop) -> std::unique_ptr<NetworkBackend> {
    const auto* details = dynamic_cast<const Ns3NetworkConfig*>(config.backend_details.get());
    if (details == nullptr) {
      throw Error("network backend 'ns3' needs its own network configuration (npus, switches, links, ...), not an "
                  "analytical one");
    }
    return make_ns3_network(*details, loop);
  };
  return spec;
}

}  // namespace snr::dsim
