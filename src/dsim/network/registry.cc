#include "dsim/network/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string_view>

#include "common/error.h"
#include "common/file_io.h"
#include "common/spelling.h"
#include "common/yaml_input.h"
#include "dsim/network/analytical_aware/aware_network.h"
#include "dsim/network/analytical_unaware/unaware_network.h"
#include "dsim/network/noc/fabric_config.h"
#include "dsim/network/ns3/ns3_config.h"

namespace snr::dsim {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<NetworkBackendSpec>> specs;  // stable addresses
};

Registry& registry() {
  static Registry* instance = [] {
    auto* r = new Registry;
    // The built-in backends, one line each (each spec lives beside its backend).
    r->specs.push_back(std::make_unique<NetworkBackendSpec>(analytical_aware_spec()));
    r->specs.push_back(std::make_unique<NetworkBackendSpec>(analytical_unaware_spec()));
    r->specs.push_back(std::make_unique<NetworkBackendSpec>(ns3_spec()));
    r->specs.push_back(std::make_unique<NetworkBackendSpec>(noc_fabric_spec()));
    return r;
  }();
  return *instance;
}

// The older ASTRA-sim (1.0, early 2.0) analytical network JSON, which current
// ASTRA-sim no longer reads: its keys name the origin and the current key each
// maps to.
constexpr std::string_view kAstraSim1NetworkKeys[] = {"dimensions-count", "topologies-per-dim", "units-count",
                                                      "links-count", "link-latency", "link-bandwidth",
                                                      "topology-name"};

[[noreturn]] void refuse_astra_sim_1_network(std::string_view source, const std::string& key, int line) {
  throw Error(fmt::format("network configuration {}: '{}' (line {}) is a key of the older ASTRA-sim (1.0, early "
                          "2.0) network format, which current ASTRA-sim no longer reads; write the analytical YAML "
                          "instead: topology: [...] (from topologies-per-dim), npus_count: [...] (units-count), "
                          "bandwidth: [...] in GB/s "
                          "(link-bandwidth), latency: [...] in ns (link-latency), one entry per dimension "
                          "(links-count has no counterpart)",
                          source, key, line));
}

// ASTRA-sim's htsim backend reads a fat-tree description ("Nodes 8",
// "Tiers 3", then one block per tier) through --htsim_opts -topo FILE, next
// to the analytical YAML; YAML reads such a file as one string.
bool is_htsim_topology(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text.substr(first).starts_with("Nodes ") &&
         text.find("\nTiers ") != std::string_view::npos;
}

}  // namespace

const NetworkBackendSpec& find_network_backend(std::string_view name) {
  Registry& r = registry();
  {
    std::lock_guard lock(r.mutex);
    for (const auto& spec : r.specs) {
      if (spec->name == name) return *spec;
    }
  }
  throw Error(fmt::format("unknown network backend '{}' (registered: {})", name,
                          fmt::join(network_backend_names(), ", ")));
}

std::vector<std::string> network_backend_names() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& spec : r.specs) names.push_back(spec->name);
  return names;
}

void register_network_backend(NetworkBackendSpec spec) {
  if (spec.name.empty() || !spec.parse_config || !spec.create) {
    throw Error(fmt::format("network backend '{}': a spec needs a name, parse_config and create", spec.name));
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& existing : r.specs) {
    if (existing->name == spec.name) throw Error(fmt::format("network backend '{}' is registered twice", spec.name));
  }
  r.specs.push_back(std::make_unique<NetworkBackendSpec>(std::move(spec)));
}

NetworkConfig parse_backend_config(const NetworkBackendSpec& spec, std::string_view text, std::string_view source) {
  // One YAML loader for every backend: duplicate keys and empty documents are errors.
  const YAML::Node root = with_error_context(fmt::format("network configuration {}", source), [&] {
    return load_yaml_document(text, source, fmt::format("a network configuration for backend '{}'", spec.name));
  });
  if (!root.IsMap() && is_htsim_topology(text)) {
    throw Error(fmt::format("network configuration {}: this is a topology file of ASTRA-sim's htsim backend "
                            "(--htsim_opts -topo), which snr does not model; give the analytical YAML that "
                            "ASTRA-sim's htsim run also takes as --network-configuration, or describe the fat tree "
                            "for --network-backend ns3 or with --infragraph",
                            source));
  }
  if (root.IsMap()) {
    for (const auto& entry : root) {
      std::string key;
      try {
        key = entry.first.as<std::string>();
      } catch (const YAML::Exception&) {
        throw Error(fmt::format("network configuration {}: a key at line {} is not a name", source,
                                entry.first.Mark().line + 1));
      }
      if (std::find(spec.config_keys.begin(), spec.config_keys.end(), key) == spec.config_keys.end()) {
        if (std::find(std::begin(kAstraSim1NetworkKeys), std::end(kAstraSim1NetworkKeys), key) !=
            std::end(kAstraSim1NetworkKeys)) {
          refuse_astra_sim_1_network(source, key, entry.first.Mark().line + 1);
        }
        const std::vector<std::string_view> known(spec.config_keys.begin(), spec.config_keys.end());
        const std::string nearest = nearest_name(key, known, 2);
        throw Error(fmt::format("network configuration {}: unknown key '{}' (line {}) for network backend '{}' "
                                "(its keys: {}){}",
                                source, key, entry.first.Mark().line + 1, spec.name, fmt::join(spec.config_keys, ", "),
                                nearest.empty() ? "" : fmt::format("; did you mean '{}'?", nearest)));
      }
    }
  }
  return spec.parse_config(text, source);
}

NetworkConfig load_backend_config(const NetworkBackendSpec& spec, const std::filesystem::path& path) {
  return parse_backend_config(spec, read_file(path), path.string());
}

}  // namespace snr::dsim
