// Queries on the fully qualified graph. Paths count edges (hops) of the
// fully qualified graph, so a switch crossing costs port→asic→port.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "infra/graph.h"

namespace snr::infra {

// A shortest path a → b (both included); empty when b is unreachable.
// Ties break towards lower node ids, so the answer is deterministic.
std::vector<NodeId> shortest_path(const Graph& graph, NodeId a, NodeId b);

struct HopHistogram {
  std::map<uint32_t, uint64_t> pairs_by_hops;  // hops -> unordered endpoint pairs
  uint64_t unreachable_pairs = 0;
};
// Over all unordered pairs of `endpoints`; one BFS per endpoint.
HopHistogram hop_histogram(const Graph& graph, std::span<const NodeId> endpoints);

struct Bisection {
  double bits_per_s = 0;    // max flow from the first half to the second, one direction
  bool unbounded = false;   // a path without any link that states its bandwidth
  size_t endpoints_per_half = 0;
};
// Bisection bandwidth for the split of `endpoints` (in the given order, e.g.
// by rank) into a first and second half: the maximum flow between the
// halves with each edge's capacity its link bandwidth in each direction.
// Edges whose link states no bandwidth (device internals) are not limits.
Bisection bisection_bandwidth(const Graph& graph, std::span<const NodeId> endpoints);

// The most that `sources`, nodes of one device instance, can send together
// out of that instance: the maximum flow over the instance's own edges (each
// at its link bandwidth) to the components that link outside it. A PCIe
// switch between GPUs and their NIC can be the narrowest part of the path
// to the fabric. Infinity when no link on some way out states a bandwidth
// (a source that links outside directly, say); 0 when there is no way out.
double instance_egress_bits_per_s(const Graph& graph, std::span<const NodeId> sources);

// The links of the least-latency way from `source` to a component of its
// device instance that links outside it, over the instance's own edges (a
// GPU's way through PCIe switches to its NIC; a link without a latency
// counts 0 ns), in order from the source: empty when `source` links
// outside itself, nullopt when nothing on its way does.
std::optional<std::vector<LinkId>> instance_egress_path(const Graph& graph, NodeId source);

}  // namespace snr::infra
