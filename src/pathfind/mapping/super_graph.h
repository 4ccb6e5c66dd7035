// Seed 004 §5.1: a parallelism strategy as a graph transformation. The
// compute graph G0 becomes the super-graph by applying, in this order,
// pipeline (slice layers into stages; no new nodes), data (every node becomes
// a ring of DP replicas) and kernel parallelism (every node becomes a KP1 x KP2
// torus for RC, a ring of KP1 for CR). Edges that connect different devices
// are cross-edges; they are what the device mapping has to route.
//
// Ring convention: shard i links to shard (i+1) mod n, and parallel edges are
// not duplicated, so a ring of n shards has n edges for n > 2, 1 edge for
// n = 2 (0 -> 1) and none for n = 1.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pathfind/mapping/notation.h"

namespace snr::pathfind {

struct ComputeNode {
  std::string name;
  size_t layer = 0;  // pipeline parallelism cuts between layers
};

struct ComputeGraph {
  std::vector<ComputeNode> nodes;
  std::vector<std::pair<size_t, size_t>> edges;  // (from, to) node indices

  // 1 + the largest layer index (0 for an empty graph).
  [[nodiscard]] size_t layer_count() const;
  // Edge ends in range, no self-loop; throws naming the edge.
  void validate() const;
};

// L nodes "layer0".."layer{L-1}", node i in layer i, edges i -> i+1.
// `layers` in 1..kMaxParallelCount.
ComputeGraph feed_forward_chain(size_t layers);

// Stage of `layer` when `layers` layers are cut into `lp` contiguous stages
// as evenly as possible: the first layers % lp stages get one extra layer.
// Throws naming lp when lp is 0 or exceeds the layers.
uint64_t pipeline_stage(size_t layer, size_t layers, uint64_t lp);

// Edges of a ring of n shards (see the convention above).
inline uint64_t ring_edge_count(uint64_t n) { return n > 2 ? n : (n == 2 ? 1 : 0); }

// Where a super-graph node (or a shard) sits in the four parallel dimensions.
struct ShardCoord {
  uint64_t kernel_row = 0;
  uint64_t kernel_col = 0;
  uint64_t pipeline_stage = 0;
  uint64_t data_replica = 0;

  [[nodiscard]] uint64_t at(ParallelDim dim) const;
  uint64_t& at(ParallelDim dim);
  friend bool operator==(const ShardCoord&, const ShardCoord&) = default;
};

// The parallel dimension an edge belongs to, or kLocal for an original edge
// inside one pipeline stage (same device at both ends). The first four
// values equal ParallelDim's.
enum class EdgeDim : uint8_t { kKernelRow = 0, kKernelCol = 1, kPipeline = 2, kData = 3, kLocal = 4 };
inline constexpr size_t kEdgeDimCount = 5;
std::string_view edge_dim_name(EdgeDim dim);  // parallel_dim_name, or "local"

struct SuperNode {
  size_t original = 0;  // index in ComputeGraph::nodes
  ShardCoord shard;
};

struct SuperEdge {
  size_t from = 0;
  size_t to = 0;
  EdgeDim dim = EdgeDim::kLocal;
  bool cross = false;  // ends on different devices: every edge except kLocal
};

struct SuperGraphCounts {
  uint64_t nodes = 0;
  std::array<uint64_t, kEdgeDimCount> edges{};        // by EdgeDim
  std::array<uint64_t, kEdgeDimCount> cross_edges{};  // by EdgeDim; kLocal is always 0
  [[nodiscard]] uint64_t total_edges() const;
  [[nodiscard]] uint64_t total_cross_edges() const;
  friend bool operator==(const SuperGraphCounts&, const SuperGraphCounts&) = default;
};

struct SuperGraph {
  ParallelismNotation notation;
  // Node of original n at data replica d, kernel row r, kernel column c has
  // index ((n * DP + d) * KP1 + r) * KP2 + c.
  std::vector<SuperNode> nodes;
  std::vector<SuperEdge> edges;
  [[nodiscard]] SuperGraphCounts counts() const;  // tallies the explicit lists
};

// Closed form: nodes = N * DP * K (K = KP1 * KP2, KP2 = 1 for CR);
// pipeline = (original edges across stages) * DP * K; local = the other
// original edges * DP * K; data = N * K * ring(DP); kernel_row = N * DP * KP2 *
// ring(KP1); kernel_col = N * DP * KP1 * ring(KP2) (0 for CR). Cheap for any size.
SuperGraphCounts count_super_graph(const ComputeGraph& graph, const ParallelismNotation& notation);

// Largest node + edge total build_super_graph materialises.
inline constexpr uint64_t kMaxSuperGraphElements = uint64_t{1} << 24;
// The explicit super-graph; throws when it would exceed kMaxSuperGraphElements
// (use count_super_graph or shard_edges for big cases).
SuperGraph build_super_graph(const ComputeGraph& graph, const ParallelismNotation& notation);

// One logical edge between two shards (devices). The per-layer copies of a
// super-graph edge all join the same two shards and travel in the same
// collective or transfer step, so the device mapping routes each distinct
// shard pair once.
struct ShardEdge {
  ShardCoord from;
  ShardCoord to;
  ParallelDim dim = ParallelDim::kData;
  friend bool operator==(const ShardEdge&, const ShardEdge&) = default;
};

// The distinct shard-level cross-edges of the super-graph, without building
// it: per dimension (kernel_row, kernel_col, pipeline, data), sorted by source
// then target shard (kernel_row fastest). Rings exist in every pipeline stage
// that holds a node; pipeline edges join every pair of stages an original edge joins.
std::vector<ShardEdge> shard_edges(const ComputeGraph& graph, const ParallelismNotation& notation);
// The same list read off an explicit super-graph (deduplicated, same order).
std::vector<ShardEdge> shard_edges(const SuperGraph& graph);
// The shard-level edges of a feed-forward chain with at least `pipeline`
// layers: rings along kernel_row, kernel_col and data, and stage s -> s+1.
std::vector<ShardEdge> chain_shard_edges(const ParallelDims& dims);

}  // namespace snr::pathfind
