// Annotations bound to the fully qualified graph: ranks on the nodes that
// run collectives (NPUs), a role and tier per device instance, and free
// attributes on nodes and link classes (the schema's Annotation request).
//
// Defaults: NPUs are the xpu nodes in node order (the nic nodes of host
// devices when no xpu exists), ranked 0.. in that order. A device instance
// is a host when its device has an xpu (or nic), a switch when it has port
// or switch components but no xpu/nic, else a device. Hosts have tier 0;
// a switch's tier is its distance in device hops from the nearest host.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "infra/graph.h"

namespace snr::infra {

enum class Role { kHost, kSwitch, kDevice };
std::string_view role_name(Role role);

struct Annotations {
  std::vector<int32_t> node_rank;   // per node; -1 when unranked
  std::vector<NodeId> ranked_nodes; // rank -> node
  std::vector<Role> device_role;    // per device instance
  std::vector<int32_t> device_tier; // per device instance; -1 when no host reaches it
  std::map<NodeId, std::map<std::string, std::string>> node_attributes;
  std::map<LinkId, std::map<std::string, std::string>> link_attributes;
};

Annotations annotate(const Graph& graph);

// Applies an annotation file (YAML/JSON, the schema's Annotation object:
// `nodes: [{name, attributes: [{attribute, value}]}]`, `links: [...]`).
// Node names are fully qualified, or `<instance>[slice]` for every node of
// those copies; link names are link classes (`leaf-link`, `server/pcie`).
// A `rank` attribute re-ranks: the ranks given must be 0..N-1, each once.
void apply_annotations(const Graph& graph, Annotations& annotations, std::string_view text, std::string_view source);

}  // namespace snr::infra
