#include "pathfind/mapping/super_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

#include "common/error.h"

namespace snr::pathfind {
namespace {

// Counts are products of a graph size and up to four parallel counts; a
// silent wrap would report a small, plausible number.
uint64_t mul(uint64_t a, uint64_t b, const ParallelismNotation& notation) {
  if (b != 0 && a > std::numeric_limits<uint64_t>::max() / b) {
    throw Error(fmt::format("super-graph of {}: a count overflows 64 bits", notation.to_string()));
  }
  return a * b;
}

struct Prepared {
  ParallelDims dims;
  std::vector<uint64_t> stage_of_node;
};

Prepared prepare(const ComputeGraph& graph, const ParallelismNotation& notation) {
  graph.validate();
  Prepared p;
  p.dims = parallel_dims(notation);  // validates the notation
  const size_t layers = graph.layer_count();
  if (layers == 0) throw Error("compute graph: no nodes to parallelise");
  p.stage_of_node.reserve(graph.nodes.size());
  for (const ComputeNode& n : graph.nodes) p.stage_of_node.push_back(pipeline_stage(n.layer, layers, notation.lp));
  return p;
}

// Shards are compared data replica first, kernel_row last: the order of a
// linear index with kernel_row varying fastest.
auto key(const ShardCoord& s) { return std::tie(s.data_replica, s.pipeline_stage, s.kernel_col, s.kernel_row); }

bool shard_edge_less(const ShardEdge& a, const ShardEdge& b) {
  if (a.dim != b.dim) return a.dim < b.dim;
  if (key(a.from) != key(b.from)) return key(a.from) < key(b.from);
  return key(a.to) < key(b.to);
}

// Rings in every occupied stage along the three ring dimensions, and one
// edge per shard for every stage pair.
std::vector<ShardEdge> generate(const ParallelDims& dims, const std::vector<bool>& stage_occupied,
                                const std::set<std::pair<uint64_t, uint64_t>>& stage_pairs) {
  if (dims.shards() > kMaxSuperGraphElements) {
    throw Error(fmt::format("shard edges of {}: {} shards exceed the limit of {}", dims.to_string(), dims.shards(),
                            kMaxSuperGraphElements));
  }
  const uint64_t occupied = static_cast<uint64_t>(std::count(stage_occupied.begin(), stage_occupied.end(), true));
  const uint64_t per_stage = dims.shards() / dims[ParallelDim::kPipeline];
  uint64_t total = stage_pairs.size() * per_stage;
  for (ParallelDim d : {ParallelDim::kKernelRow, ParallelDim::kKernelCol, ParallelDim::kData}) {
    total += occupied * per_stage / dims[d] * ring_edge_count(dims[d]);
  }
  if (total > 4 * kMaxSuperGraphElements) {
    throw Error(fmt::format("shard edges of {}: {} edges exceed the limit of {}", dims.to_string(), total,
                            4 * kMaxSuperGraphElements));
  }
  std::vector<std::vector<uint64_t>> later_stages(dims[ParallelDim::kPipeline]);
  for (const auto& [from, to] : stage_pairs) later_stages[from].push_back(to);

  std::vector<ShardEdge> out;
  out.reserve(total);
  ShardCoord s;
  for (s.data_replica = 0; s.data_replica < dims[ParallelDim::kData]; ++s.data_replica) {
    for (s.pipeline_stage = 0; s.pipeline_stage < dims[ParallelDim::kPipeline]; ++s.pipeline_stage) {
      for (s.kernel_col = 0; s.kernel_col < dims[ParallelDim::kKernelCol]; ++s.kernel_col) {
        for (s.kernel_row = 0; s.kernel_row < dims[ParallelDim::kKernelRow]; ++s.kernel_row) {
          for (ParallelDim d : kAllParallelDims) {
            if (d == ParallelDim::kPipeline) {
              for (uint64_t to : later_stages[s.pipeline_stage]) {
                ShardCoord t = s;
                t.pipeline_stage = to;
                out.push_back({s, t, d});
              }
              continue;
            }
            if (!stage_occupied[s.pipeline_stage]) continue;
            const uint64_t n = dims[d];
            if (s.at(d) >= ring_edge_count(n)) continue;  // the ring of 2 has only 0 -> 1
            ShardCoord t = s;
            t.at(d) = (s.at(d) + 1) % n;
            out.push_back({s, t, d});
          }
        }
      }
    }
  }
  std::sort(out.begin(), out.end(), shard_edge_less);
  return out;
}

}  // namespace

size_t ComputeGraph::layer_count() const {
  size_t layers = 0;
  for (const ComputeNode& n : nodes) layers = std::max(layers, n.layer + 1);
  return layers;
}

void ComputeGraph::validate() const {
  for (size_t i = 0; i < edges.size(); ++i) {
    const auto& [from, to] = edges[i];
    if (from >= nodes.size() || to >= nodes.size()) {
      throw Error(fmt::format("compute graph: edge {} ({} -> {}) refers to a node outside 0..{}", i, from, to,
                              nodes.size() == 0 ? 0 : nodes.size() - 1));
    }
    if (from == to) throw Error(fmt::format("compute graph: edge {} is a self-loop on node '{}'", i, nodes[from].name));
  }
}

ComputeGraph feed_forward_chain(size_t layers) {
  if (layers == 0 || layers > kMaxParallelCount) {
    throw Error(fmt::format("feed-forward chain: layers must be in 1..{}, got {}", kMaxParallelCount, layers));
  }
  ComputeGraph g;
  for (size_t i = 0; i < layers; ++i) {
    g.nodes.push_back({fmt::format("layer{}", i), i});
    if (i > 0) g.edges.emplace_back(i - 1, i);
  }
  return g;
}

uint64_t pipeline_stage(size_t layer, size_t layers, uint64_t lp) {
  if (lp == 0 || lp > layers) {
    throw Error(fmt::format("pipeline: lp = {} must be in 1..{} (the layers of the compute graph)", lp, layers));
  }
  if (layer >= layers) throw Error(fmt::format("pipeline: layer {} is not below the {} layers", layer, layers));
  const uint64_t base = layers / lp;
  const uint64_t extra = layers % lp;
  const uint64_t in_long_stages = extra * (base + 1);
  if (layer < in_long_stages) return layer / (base + 1);
  return extra + (layer - in_long_stages) / base;
}

uint64_t ShardCoord::at(ParallelDim dim) const {
  switch (dim) {
    case ParallelDim::kKernelRow: return kernel_row;
    case ParallelDim::kKernelCol: return kernel_col;
    case ParallelDim::kPipeline: return pipeline_stage;
    case ParallelDim::kData: return data_replica;
  }
  return 0;
}

uint64_t& ShardCoord::at(ParallelDim dim) {
  switch (dim) {
    case ParallelDim::kKernelRow: return kernel_row;
    case ParallelDim::kKernelCol: return kernel_col;
    case ParallelDim::kPipeline: return pipeline_stage;
    case ParallelDim::kData: break;
  }
  return data_replica;
}

std::string_view edge_dim_name(EdgeDim dim) {
  if (dim == EdgeDim::kLocal) return "local";
  return parallel_dim_name(static_cast<ParallelDim>(dim));
}

uint64_t SuperGraphCounts::total_edges() const {
  uint64_t t = 0;
  for (uint64_t e : edges) t += e;
  return t;
}

uint64_t SuperGraphCounts::total_cross_edges() const {
  uint64_t t = 0;
  for (uint64_t e : cross_edges) t += e;
  return t;
}

SuperGraphCounts SuperGraph::counts() const {
  SuperGraphCounts c;
  c.nodes = nodes.size();
  for (const SuperEdge& e : edges) {
    ++c.edges[static_cast<size_t>(e.dim)];
    if (e.cross) ++c.cross_edges[static_cast<size_t>(e.dim)];
  }
  return c;
}

SuperGraphCounts count_super_graph(const ComputeGraph& graph, const ParallelismNotation& notation) {
  const Prepared p = prepare(graph, notation);
  const uint64_t kp1 = p.dims[ParallelDim::kKernelRow];
  const uint64_t kp2 = p.dims[ParallelDim::kKernelCol];
  const uint64_t dp = p.dims[ParallelDim::kData];
  const uint64_t n = graph.nodes.size();
  const uint64_t copies = mul(dp, kp1 * kp2, notation);  // shards of one original node
  uint64_t across = 0;
  for (const auto& [from, to] : graph.edges) across += p.stage_of_node[from] != p.stage_of_node[to] ? 1 : 0;

  SuperGraphCounts c;
  c.nodes = mul(n, copies, notation);
  auto put = [&c](EdgeDim d, uint64_t count, bool cross) {
    c.edges[static_cast<size_t>(d)] = count;
    c.cross_edges[static_cast<size_t>(d)] = cross ? count : 0;
  };
  put(EdgeDim::kPipeline, mul(across, copies, notation), true);
  put(EdgeDim::kLocal, mul(graph.edges.size() - across, copies, notation), false);
  put(EdgeDim::kData, mul(mul(n, kp1 * kp2, notation), ring_edge_count(dp), notation), true);
  put(EdgeDim::kKernelRow, mul(mul(n, dp * kp2, notation), ring_edge_count(kp1), notation), true);
  put(EdgeDim::kKernelCol, mul(mul(n, dp * kp1, notation), ring_edge_count(kp2), notation), true);
  return c;
}

SuperGraph build_super_graph(const ComputeGraph& graph, const ParallelismNotation& notation) {
  const SuperGraphCounts expected = count_super_graph(graph, notation);
  if (expected.nodes + expected.total_edges() > kMaxSuperGraphElements) {
    throw Error(fmt::format(
        "super-graph of {}: {} nodes and {} edges exceed the {} elements built explicitly; use the closed-form counts",
        notation.to_string(), expected.nodes, expected.total_edges(), kMaxSuperGraphElements));
  }
  const Prepared p = prepare(graph, notation);
  const uint64_t kp1 = p.dims[ParallelDim::kKernelRow];
  const uint64_t kp2 = p.dims[ParallelDim::kKernelCol];
  const uint64_t dp = p.dims[ParallelDim::kData];
  auto index = [&](size_t n, uint64_t d, uint64_t r, uint64_t c) -> size_t {
    return static_cast<size_t>(((n * dp + d) * kp1 + r) * kp2 + c);
  };

  SuperGraph sg;
  sg.notation = notation;
  sg.nodes.reserve(expected.nodes);
  sg.edges.reserve(expected.total_edges());
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (uint64_t d = 0; d < dp; ++d) {
      for (uint64_t r = 0; r < kp1; ++r) {
        for (uint64_t c = 0; c < kp2; ++c) sg.nodes.push_back({n, {r, c, p.stage_of_node[n], d}});
      }
    }
  }
  auto ring = [&sg](uint64_t size, EdgeDim dim, auto&& node_at) {
    for (uint64_t i = 0; i < ring_edge_count(size); ++i) sg.edges.push_back({node_at(i), node_at((i + 1) % size), dim, true});
  };
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    // Data: one ring over the replicas of every kernel shard of the node.
    for (uint64_t r = 0; r < kp1; ++r) {
      for (uint64_t c = 0; c < kp2; ++c) ring(dp, EdgeDim::kData, [&](uint64_t d) { return index(n, d, r, c); });
    }
    // Kernel: the KP1 x KP2 torus of every replica (CR: KP2 = 1, one ring).
    for (uint64_t d = 0; d < dp; ++d) {
      for (uint64_t c = 0; c < kp2; ++c) ring(kp1, EdgeDim::kKernelRow, [&](uint64_t r) { return index(n, d, r, c); });
      for (uint64_t r = 0; r < kp1; ++r) ring(kp2, EdgeDim::kKernelCol, [&](uint64_t c) { return index(n, d, r, c); });
    }
  }
  // Original edges: one copy per shard coordinate, joining equal coordinates.
  for (const auto& [from, to] : graph.edges) {
    const bool across = p.stage_of_node[from] != p.stage_of_node[to];
    for (uint64_t d = 0; d < dp; ++d) {
      for (uint64_t r = 0; r < kp1; ++r) {
        for (uint64_t c = 0; c < kp2; ++c) {
          sg.edges.push_back({index(from, d, r, c), index(to, d, r, c), across ? EdgeDim::kPipeline : EdgeDim::kLocal,
                              across});
        }
      }
    }
  }
  return sg;
}

std::vector<ShardEdge> shard_edges(const ComputeGraph& graph, const ParallelismNotation& notation) {
  const Prepared p = prepare(graph, notation);
  std::vector<bool> occupied(p.dims[ParallelDim::kPipeline], false);
  for (uint64_t s : p.stage_of_node) occupied[s] = true;
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (const auto& [from, to] : graph.edges) {
    if (p.stage_of_node[from] != p.stage_of_node[to]) pairs.emplace(p.stage_of_node[from], p.stage_of_node[to]);
  }
  return generate(p.dims, occupied, pairs);
}

std::vector<ShardEdge> shard_edges(const SuperGraph& graph) {
  std::vector<ShardEdge> out;
  for (const SuperEdge& e : graph.edges) {
    if (!e.cross) continue;
    out.push_back({graph.nodes[e.from].shard, graph.nodes[e.to].shard, static_cast<ParallelDim>(e.dim)});
  }
  std::sort(out.begin(), out.end(), shard_edge_less);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<ShardEdge> chain_shard_edges(const ParallelDims& dims) {
  dims.validate();
  const uint64_t lp = dims[ParallelDim::kPipeline];
  std::set<std::pair<uint64_t, uint64_t>> pairs;
  for (uint64_t s = 0; s + 1 < lp; ++s) pairs.emplace(s, s + 1);
  return generate(dims, std::vector<bool>(lp, true), pairs);
}

}  // namespace snr::pathfind
