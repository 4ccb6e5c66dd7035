#include "dsim/network/noc/fabric_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "common/yaml_input.h"
#include "dsim/network/noc/fabric_network.h"
#include "dsim/network/noc/fabric_routing.h"
#include "dsim/network/registry.h"

namespace snr::dsim {
namespace {

int line(const YAML::Node& node) { return node.Mark().line + 1; }

// A finite number in [lo, hi]; `key` names the entry in errors.
double read_number(const YAML::Node& node, const std::string& key, double lo, double hi, std::string_view unit) {
  const std::string text = node.IsScalar() ? node.Scalar() : std::string();
  double value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size()) {
    throw Error(fmt::format("{} must be a number, got '{}' (line {})", key, text, line(node)));
  }
  if (!std::isfinite(value) || value < lo || value > hi) {
    throw Error(fmt::format("{} = {} is out of range (line {}): valid {:g} .. {:g}{}", key, text, line(node), lo, hi,
                            unit));
  }
  return value;
}

uint64_t read_whole(const YAML::Node& node, const std::string& key, uint64_t lo, uint64_t hi) {
  const double value = read_number(node, key, static_cast<double>(lo), static_cast<double>(hi), "");
  if (std::trunc(value) != value) {
    throw Error(fmt::format("{} must be a whole number, got {} (line {})", key, node.Scalar(), line(node)));
  }
  return static_cast<uint64_t>(value);
}

// `npus:` and `switches:` are a count (names made up from `prefix`) or a
// list of names.
// `lines` gets the line of each name, for errors found later.
std::vector<std::string> read_nodes(const YAML::Node& node, const std::string& key, uint64_t min_count,
                                    std::string_view prefix, std::vector<int>& lines) {
  std::vector<std::string> names;
  if (node.IsScalar()) {
    const uint64_t count = read_whole(node, key, min_count, kMaxNocFabricNodes);
    for (uint64_t i = 0; i < count; ++i) names.push_back(fmt::format("{}{}", prefix, i));
    lines.insert(lines.end(), count, line(node));
    return names;
  }
  if (!node.IsSequence() || node.size() < min_count || node.size() > kMaxNocFabricNodes) {
    throw Error(fmt::format("{} must be a count or a list of at least {} name(s) (line {})", key, min_count,
                            line(node)));
  }
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node name = node[i];
    if (!name.IsScalar() || name.Scalar().empty()) {
      throw Error(fmt::format("{}[{}] must be a non-empty name (line {})", key, i, line(name)));
    }
    names.push_back(name.Scalar());
    lines.push_back(line(name));
  }
  return names;
}

NocFabricLink read_link(const YAML::Node& node, size_t index,
                        const std::unordered_map<std::string, uint32_t>& node_of_name) {
  const std::string where = fmt::format("links[{}]", index);
  if (!node.IsMap()) {
    throw Error(fmt::format("{} must be a mapping {{from, to, bandwidth_gbps, latency_ns[, bidirectional]}} (line {})",
                            where, line(node)));
  }
  NocFabricLink link;
  std::optional<uint32_t> from, to;
  bool have_bandwidth = false, have_latency = false;
  for (const auto& entry : node) {
    const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
    const std::string at = where + "." + key;
    const YAML::Node& value = entry.second;
    if (key == "from" || key == "to") {
      const std::string name = value.IsScalar() ? value.Scalar() : std::string();
      const auto found = node_of_name.find(name);
      if (found == node_of_name.end()) {
        throw Error(fmt::format("{} '{}' is not a node named in npus or switches (line {})", at, name, line(value)));
      }
      (key == "from" ? from : to) = found->second;
    } else if (key == "bandwidth_gbps") {
      link.bandwidth_gbps = read_number(value, at, kMinNocFabricBandwidthGbps, kMaxNocFabricBandwidthGbps, " Gb/s");
      have_bandwidth = true;
    } else if (key == "latency_ns") {
      link.latency_ns = read_number(value, at, 0, kMaxNocFabricLatencyNs, " ns");
      have_latency = true;
    } else if (key == "bidirectional") {
      if (!value.IsScalar() || (value.Scalar() != "true" && value.Scalar() != "false")) {
        throw Error(fmt::format("{} must be true or false (line {})", at, line(value)));
      }
      link.bidirectional = value.Scalar() == "true";
    } else {
      throw Error(fmt::format("{}: unknown key '{}' (line {}); a link has from, to, bandwidth_gbps, latency_ns, "
                              "bidirectional",
                              where, key, line(entry.first)));
    }
  }
  if (!from || !to || !have_bandwidth || !have_latency) {
    throw Error(fmt::format("{} needs from, to, bandwidth_gbps and latency_ns (line {})", where, line(node)));
  }
  if (*from == *to) throw Error(fmt::format("{} joins a node to itself (line {})", where, line(node)));
  link.from = *from;
  link.to = *to;
  return link;
}

std::string quoted(const std::string& name) {
  YAML::Emitter out;
  out << YAML::DoubleQuoted << name;
  return out.c_str();
}

}  // namespace

NocFabricConfig parse_noc_fabric(std::string_view text, std::string_view source) {
  return with_error_context(fmt::format("noc network configuration {}", source), [&] {
    const YAML::Node root = load_yaml_document(text, source, "a noc network configuration");
    if (!root.IsMap()) throw Error("the top level must be a mapping (npus, switches, links, ...)");
    NocFabricConfig config;
    std::optional<YAML::Node> npus, switches, links;
    for (const auto& entry : root) {
      if (!entry.first.IsScalar()) throw Error(fmt::format("keys must be plain names (line {})", line(entry.first)));
      const std::string key = entry.first.Scalar();
      const YAML::Node& value = entry.second;
      if (key == "npus") {
        npus = value;
      } else if (key == "switches") {
        switches = value;
      } else if (key == "links") {
        links = value;
      } else if (key == "segment_bytes") {
        config.segment_bytes = read_whole(value, key, kMinNocSegmentBytes, kMaxNocSegmentBytes);
      } else if (key == "segment_header_bytes") {
        config.segment_header_bytes = read_whole(value, key, 0, kMaxNocSegmentHeaderBytes);
      } else if (key == "ecmp") {
        config.ecmp = value.IsScalar() ? value.Scalar() : std::string();
        if (find_noc_ecmp_policy(config.ecmp) == nullptr) {
          throw Error(fmt::format("ecmp = '{}' (line {}): valid {}", config.ecmp, line(value), noc_ecmp_names()));
        }
      } else if (key == "ecmp_seed") {
        config.ecmp_seed = read_whole(value, key, 0, uint64_t{1} << 53);
      } else if (key == "logical_dims") {
        if (!value.IsSequence() || value.size() == 0) {
          throw Error(fmt::format("logical_dims must be a non-empty list of dimension sizes (line {})", line(value)));
        }
        for (size_t d = 0; d < value.size(); ++d) {
          config.logical_dims.push_back(static_cast<uint32_t>(read_whole(
              value[d], fmt::format("logical_dims[{}]", d), value.size() == 1 ? 1 : 2, kMaxNocFabricNodes)));
        }
      } else {
        throw Error(fmt::format("unknown key '{}' (line {}); the keys are npus, switches, links, segment_bytes, "
                                "segment_header_bytes, ecmp, ecmp_seed, logical_dims",
                                key, line(entry.first)));
      }
    }
    if (!npus) throw Error("key 'npus' is required (a count or a list of names)");
    std::vector<int> name_lines;
    config.npu_names = read_nodes(*npus, "npus", 1, "npu", name_lines);
    if (switches) config.switch_names = read_nodes(*switches, "switches", 0, "switch", name_lines);
    if (uint64_t{config.npus()} + config.switch_names.size() > kMaxNocFabricNodes) {
      throw Error(fmt::format("npus + switches = {} nodes, more than the {} modelled",
                              config.npu_names.size() + config.switch_names.size(), kMaxNocFabricNodes));
    }
    std::unordered_map<std::string, uint32_t> node_of_name;
    for (uint32_t node = 0; node < config.node_count(); ++node) {
      const auto [at, added] = node_of_name.emplace(config.node_name(node), node);
      if (!added) {
        const bool npu = node < config.npus();
        throw Error(fmt::format("{}[{}] '{}' names a node already named (line {})", npu ? "npus" : "switches",
                                npu ? node : node - config.npus(), config.node_name(node), name_lines[node]));
      }
    }
    if (!config.logical_dims.empty()) {
      uint64_t product = 1;
      for (const uint32_t size : config.logical_dims) product = std::min(product * size, uint64_t{1} << 40);
      if (product != config.npus()) {
        throw Error(fmt::format("logical_dims multiply to {} NPUs, but there are {}", product, config.npus()));
      }
    }
    if (links && !links->IsSequence()) throw Error(fmt::format("links must be a list (line {})", line(*links)));
    if (links) {
      for (size_t i = 0; i < links->size(); ++i) config.links.push_back(read_link((*links)[i], i, node_of_name));
    }
    if (config.npus() > 1) {
      if (config.links.empty()) throw Error("key 'links' must list the links between the nodes");
      uint32_t from = 0, to = 0;
      if (!noc_fabric_connected(config, from, to)) {
        throw Error(fmt::format("NPU {} ('{}') cannot reach NPU {} ('{}') over the links given", from,
                                config.node_name(from), to, config.node_name(to)));
      }
    }
    return config;
  });
}

std::string noc_fabric_yaml(const NocFabricConfig& config, std::string_view comment) {
  while (!comment.empty() && comment.back() == '\n') comment.remove_suffix(1);
  std::string out = comment.empty() ? "" : "# ";
  for (const char c : comment) out += c == '\n' ? std::string_view("\n# ") : std::string_view(&c, 1);
  if (!comment.empty()) out += '\n';
  out += "npus:  # in rank order\n";
  for (const std::string& name : config.npu_names) out += fmt::format("  - {}\n", quoted(name));
  out += config.switch_names.empty() ? "switches: []\n" : "switches:\n";
  for (const std::string& name : config.switch_names) out += fmt::format("  - {}\n", quoted(name));
  out += config.links.empty() ? "links: []\n"
                              : "links:  # bandwidth_gbps: 10^9 bit/s in each direction; latency_ns: per traversal\n";
  for (const NocFabricLink& link : config.links) {
    out += fmt::format("  - {{from: {}, to: {}, bandwidth_gbps: {}, latency_ns: {}{}}}\n",
                       quoted(config.node_name(link.from)), quoted(config.node_name(link.to)), link.bandwidth_gbps,
                       link.latency_ns, link.bidirectional ? "" : ", bidirectional: false");
  }
  out += fmt::format("segment_bytes: {}\nsegment_header_bytes: {}\necmp: {}\necmp_seed: {}\n", config.segment_bytes,
                     config.segment_header_bytes, config.ecmp, config.ecmp_seed);
  if (!config.logical_dims.empty()) out += fmt::format("logical_dims: [{}]\n", fmt::join(config.logical_dims, ", "));
  return out;
}

NetworkConfig noc_fabric_logical_topology(std::shared_ptr<const NocFabricConfig> config) {
  double fastest_gbps = 0;
  for (const NocFabricLink& link : config->links) {
    if (link.from < config->npus() || link.to < config->npus()) fastest_gbps = std::max(fastest_gbps, link.bandwidth_gbps);
  }
  // The system layer reads GB/s of 2^30 bytes, as the analytical files do.
  const double gib_per_s = std::max(fastest_gbps * 1e9 / 8 / 1073741824.0, kMinBandwidthGibPerS);
  NetworkConfig logical;
  const std::vector<uint32_t> sizes =
      config->logical_dims.empty() ? std::vector<uint32_t>{config->npus()} : config->logical_dims;
  for (const uint32_t size : sizes) {
    logical.dimensions.push_back(NetworkDimension{TopologyKind::kSwitch, size, gib_per_s, 0});
  }
  logical.backend_details = std::move(config);
  return logical;
}

NetworkBackendSpec noc_fabric_spec() {
  NetworkBackendSpec spec;
  spec.name = "noc";
  spec.summary = "NoC-level Simple network on a graph: segments forwarded hop by hop, store and forward, per-link FIFO";
  spec.config_keys = {"npus", "switches", "links", "segment_bytes", "segment_header_bytes", "ecmp", "ecmp_seed",
                      "logical_dims"};
  spec.parse_config = [](std::string_view text, std::string_view source) {
    return noc_fabric_logical_topology(std::make_shared<const NocFabricConfig>(parse_noc_fabric(text, source)));
  };
  spec.create = [](const NetworkConfig& config, EventLoop& loop) {
    return make_noc_fabric_network(backend_details_of<NocFabricConfig>(config, "noc"), loop);
  };
  return spec;
}

}  // namespace snr::dsim
