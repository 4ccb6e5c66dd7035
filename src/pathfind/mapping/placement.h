// Seed 004 §5.2 and §6.4: greedy device mapping of parallel shards onto a
// system graph, X-Y routing of the logical edges, and the bandwidth derate
// of links that several logical edges share.
//
// Mapping walk: an ordering lists the four parallel dimensions; the first
// varies fastest in the shard's linear index, and linear index i goes to
// system node i (first system dimension fastest). A parallel dimension
// larger than the hardware dimension it starts in wraps into the next one.
//
// Sharing: each distinct shard-level edge (ShardEdge) is routed once; its
// per-layer copies in the super-graph belong to the same collective or
// transfer step. A link's sharing count is the number of logical edges of one
// step that cross it: by default the edges of one parallel dimension (each
// dimension's collective runs on its own), optionally of all four at once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "pathfind/mapping/notation.h"
#include "pathfind/mapping/super_graph.h"
#include "pathfind/mapping/system_graph.h"

namespace snr::pathfind {

// A permutation of the four parallel dimensions, fastest-varying first.
using DimOrder = std::array<ParallelDim, kParallelDimCount>;
// The 4! = 24 orderings in std::next_permutation order from
// {kernel_row, kernel_col, pipeline, data} (the paper's Figure 5 order comes first).
std::vector<DimOrder> all_orderings();
std::string order_name(const DimOrder& order);  // "kernel_row,kernel_col,pipeline,data"

enum class Contention {
  kPerDimension,   // a link is shared by the edges of one dimension's step
  kAllDimensions,  // all four dimensions communicate at the same time
};

struct MappingOptions {
  Contention contention = Contention::kPerDimension;
};

// What the logical edges of one parallel dimension see after routing.
struct DimensionTraffic {
  uint64_t edges = 0;  // distinct shard-level edges
  uint64_t max_hops = 0;
  double mean_hops = 0;
  // Most logical edges counted on one directed link that these edges use.
  uint64_t max_sharing = 0;
  // Of the worst edge: min over its links of link bandwidth / edges sharing
  // the link, then min over the edges. 0 when the dimension has no edges.
  double effective_bandwidth_bytes_per_s = 0;
  double max_path_latency_s = 0;  // sum of link latencies, longest path
  // The link that sets the effective bandwidth and its tier (when edges > 0).
  uint64_t bottleneck_link = 0;
  size_t bottleneck_tier = 0;
};

// Logical edges of each parallel dimension on one directed link.
struct LinkLoad {
  uint64_t link = 0;
  std::array<uint32_t, kParallelDimCount> edges{};
};

struct Mapping {
  DimOrder order{};
  std::array<DimensionTraffic, kParallelDimCount> dims{};  // by ParallelDim
  std::vector<LinkLoad> links;                              // used links, by id
  // bytes / effective bandwidth + max path latency per dimension (0 without
  // edges), and their sum: the score orderings are compared by.
  std::array<double, kParallelDimCount> time_s{};
  double score_s = 0;
};

// The part of DeviceMapper::evaluate that depends on the system's shape and
// not on its link bandwidths or latencies: where every logical edge of one
// ordering runs and how many edges share each link. A design search that
// keeps the ordering and changes only bandwidths routes once and scores
// each design (DeviceMapper::score).
struct RoutedOrder {
  DimOrder order{};
  // Per dimension, the links of each edge's path in edge order, with the
  // sharing count each link is derated by; edge i's hops end at path_end[i].
  struct Hops {
    std::vector<uint64_t> link;
    std::vector<uint32_t> sharing;
    std::vector<size_t> path_end;
  };
  std::array<Hops, kParallelDimCount> dims{};
  std::vector<LinkLoad> links;  // as Mapping::links
};

struct OrderingSearch {
  Mapping best;  // with its links
  size_t best_index = 0;  // into `all`
  std::vector<Mapping> all;  // the 24 orderings in enumeration order, links left out
};

class DeviceMapper {
 public:
  // `edges` are the logical edges to route (shard_edges of a compute graph).
  // Throws when the shard count differs from the system's nodes (naming
  // both) or an edge leaves the parallel space.
  DeviceMapper(ParallelDims dims, SystemGraph system, std::vector<ShardEdge> edges, MappingOptions options = {});
  // The edges of a feed-forward chain (chain_shard_edges).
  DeviceMapper(ParallelDims dims, SystemGraph system, MappingOptions options = {});

  [[nodiscard]] const ParallelDims& dims() const { return dims_; }
  [[nodiscard]] const SystemGraph& system() const { return system_; }
  [[nodiscard]] const std::vector<ShardEdge>& edges() const { return edges_; }

  // System node that holds `shard` under `order`.
  [[nodiscard]] uint64_t node_of(const ShardCoord& shard, const DimOrder& order) const;
  // Routes every edge; scratch memory is O(system links) per call and
  // nothing is shared between calls, so calls may run concurrently.
  // `bytes_per_dimension` (by ParallelDim) is what one logical edge of that
  // dimension carries in its step; it only feeds time_s and score_s.
  // Throws on an order that is not a permutation or on bad bytes.
  [[nodiscard]] Mapping evaluate(const DimOrder& order,
                                 const std::array<double, kParallelDimCount>& bytes_per_dimension = {}) const;
  // evaluate() in two parts: route() once per ordering, then score() on this
  // system or on any system of the same shape (same_shape) with other link
  // bandwidths and latencies; score(route(o), system(), bytes) is
  // evaluate(o, bytes) exactly. Throw as evaluate() does.
  [[nodiscard]] RoutedOrder route(const DimOrder& order) const;
  [[nodiscard]] static Mapping score(const RoutedOrder& routed, const SystemGraph& system,
                                     const std::array<double, kParallelDimCount>& bytes_per_dimension = {});
  // Evaluates all 24 orderings; the lowest score wins, ties go to the earlier one.
  [[nodiscard]] OrderingSearch best_ordering(const std::array<double, kParallelDimCount>& bytes_per_dimension) const;

 private:
  ParallelDims dims_;
  SystemGraph system_;
  std::vector<ShardEdge> edges_;
  MappingOptions options_;
};

// Whether two system graphs have the same dimensions (sizes, kinds, tiers),
// so that link ids and routes agree; bandwidths and latencies may differ.
bool same_shape(const SystemGraph& a, const SystemGraph& b);

// DeviceMapper(dims, system, options).best_ordering(bytes_per_dimension).
OrderingSearch best_ordering(const ParallelDims& dims, const SystemGraph& system,
                             const std::array<double, kParallelDimCount>& bytes_per_dimension,
                             const MappingOptions& options = {});

}  // namespace snr::pathfind
