#include "pathfind/mapping/placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "common/error.h"

namespace snr::pathfind {
namespace {

void check_order(const DimOrder& order) {
  std::array<bool, kParallelDimCount> seen{};
  for (ParallelDim d : order) {
    if (index_of(d) >= kParallelDimCount) throw Error("device mapping: order holds an unknown dimension");
    if (seen[index_of(d)]) {
      throw Error(fmt::format("device mapping: order {} lists {} twice", order_name(order), parallel_dim_name(d)));
    }
    seen[index_of(d)] = true;
  }
}

void check_bytes(const std::array<double, kParallelDimCount>& bytes) {
  for (ParallelDim d : kAllParallelDims) {
    const double b = bytes[index_of(d)];
    if (!(b >= 0) || !std::isfinite(b)) {
      throw Error(fmt::format("device mapping: bytes_per_dimension[{}] must be finite and non-negative, got {}",
                              parallel_dim_name(d), b));
    }
  }
}

}  // namespace

std::vector<DimOrder> all_orderings() {
  DimOrder order = kAllParallelDims;  // sorted: next_permutation starts here
  std::vector<DimOrder> out;
  do {
    out.push_back(order);
  } while (std::next_permutation(order.begin(), order.end()));
  return out;
}

std::string order_name(const DimOrder& order) {
  std::string out;
  for (ParallelDim d : order) out += fmt::format("{}{}", out.empty() ? "" : ",", parallel_dim_name(d));
  return out;
}

DeviceMapper::DeviceMapper(ParallelDims dims, SystemGraph system, std::vector<ShardEdge> edges, MappingOptions options)
    : dims_(dims), system_(std::move(system)), edges_(std::move(edges)), options_(options) {
  dims_.validate();
  if (dims_.shards() != system_.node_count()) {
    throw Error(fmt::format("device mapping: parallel dimensions {} = {} shards but the system has {} nodes",
                            dims_.to_string(), dims_.shards(), system_.node_count()));
  }
  for (size_t i = 0; i < edges_.size(); ++i) {
    const ShardEdge& e = edges_[i];
    for (ParallelDim d : kAllParallelDims) {
      if (e.from.at(d) >= dims_[d] || e.to.at(d) >= dims_[d]) {
        throw Error(fmt::format("device mapping: edge {} has {} coordinate {} -> {} outside 0..{}", i,
                                parallel_dim_name(d), e.from.at(d), e.to.at(d), dims_[d] - 1));
      }
      // Anything else would be charged to the wrong dimension's step.
      if (d != e.dim && e.from.at(d) != e.to.at(d)) {
        throw Error(fmt::format("device mapping: edge {} of dimension {} also changes {}", i,
                                parallel_dim_name(e.dim), parallel_dim_name(d)));
      }
    }
    if (e.from == e.to) throw Error(fmt::format("device mapping: edge {} joins a shard to itself", i));
  }
}

DeviceMapper::DeviceMapper(ParallelDims dims, SystemGraph system, MappingOptions options)
    : DeviceMapper(dims, std::move(system), chain_shard_edges(dims), options) {}

uint64_t DeviceMapper::node_of(const ShardCoord& shard, const DimOrder& order) const {
  check_order(order);
  uint64_t index = 0;
  uint64_t stride = 1;
  for (ParallelDim d : order) {
    if (shard.at(d) >= dims_[d]) {
      throw Error(fmt::format("device mapping: {} coordinate {} is not below {}", parallel_dim_name(d), shard.at(d),
                              dims_[d]));
    }
    index += shard.at(d) * stride;
    stride *= dims_[d];
  }
  return index;  // system node ids run in coordinate order, first dimension fastest
}

Mapping DeviceMapper::evaluate(const DimOrder& order, const std::array<double, kParallelDimCount>& bytes) const {
  check_order(order);
  check_bytes(bytes);
  return score(route(order), system_, bytes);
}

RoutedOrder DeviceMapper::route(const DimOrder& order) const {
  check_order(order);
  RoutedOrder r;
  r.order = order;

  // Endpoints once per edge, grouped by dimension.
  std::array<std::vector<std::pair<uint64_t, uint64_t>>, kParallelDimCount> ends;
  for (const ShardEdge& e : edges_) ends[index_of(e.dim)].emplace_back(node_of(e.from, order), node_of(e.to, order));

  // Pass 1: route every edge once, keeping its path, and count the edges of
  // each dimension on every directed link. The dense counter is reused per
  // dimension and its touched entries kept sparsely, so memory stays
  // O(links) whatever the number of dimensions.
  const bool all_at_once = options_.contention == Contention::kAllDimensions;
  std::vector<uint32_t> load(system_.link_count(), 0);
  std::vector<uint32_t> total(all_at_once ? system_.link_count() : 0, 0);
  std::array<std::vector<std::pair<uint64_t, uint32_t>>, kParallelDimCount> used;
  std::vector<uint64_t> path;
  std::vector<uint64_t> touched;
  for (ParallelDim d : kAllParallelDims) {
    RoutedOrder::Hops& hops = r.dims[index_of(d)];
    touched.clear();
    for (const auto& [from, to] : ends[index_of(d)]) {
      system_.route(from, to, path);
      for (uint64_t l : path) {
        if (load[l]++ == 0) touched.push_back(l);
      }
      hops.link.insert(hops.link.end(), path.begin(), path.end());
      hops.path_end.push_back(hops.link.size());
    }
    std::sort(touched.begin(), touched.end());
    for (uint64_t l : touched) {
      used[index_of(d)].emplace_back(l, load[l]);
      if (all_at_once) total[l] += load[l];
      load[l] = 0;
    }
  }

  // The sharing each hop is derated by (§6.4): the edges of its own
  // dimension on the link, or of all four at once.
  for (ParallelDim d : kAllParallelDims) {
    RoutedOrder::Hops& hops = r.dims[index_of(d)];
    if (!all_at_once) {
      for (const auto& [l, count] : used[index_of(d)]) load[l] = count;
    }
    const std::vector<uint32_t>& sharing = all_at_once ? total : load;
    hops.sharing.reserve(hops.link.size());
    for (uint64_t l : hops.link) hops.sharing.push_back(sharing[l]);
    if (!all_at_once) {
      for (const auto& entry : used[index_of(d)]) load[entry.first] = 0;
    }
  }

  // Per-link report: merge the four sorted sparse lists.
  std::vector<std::pair<uint64_t, size_t>> entries;  // (link, dimension)
  for (size_t d = 0; d < kParallelDimCount; ++d) {
    for (const auto& [l, count] : used[d]) entries.emplace_back(l, d);
  }
  std::sort(entries.begin(), entries.end());
  std::array<size_t, kParallelDimCount> next{};
  for (const auto& [l, d] : entries) {
    if (r.links.empty() || r.links.back().link != l) r.links.push_back({l, {}});
    r.links.back().edges[d] = used[d][next[d]++].second;
  }
  return r;
}

Mapping DeviceMapper::score(const RoutedOrder& routed, const SystemGraph& system,
                            const std::array<double, kParallelDimCount>& bytes) {
  check_bytes(bytes);
  Mapping m;
  m.order = routed.order;
  // Pass 2: hops, latency and the §6.4 derate of every edge.
  for (ParallelDim d : kAllParallelDims) {
    const RoutedOrder::Hops& hops = routed.dims[index_of(d)];
    if (hops.path_end.empty()) continue;
    DimensionTraffic& t = m.dims[index_of(d)];
    t.edges = hops.path_end.size();
    t.effective_bandwidth_bytes_per_s = std::numeric_limits<double>::infinity();
    uint64_t hop_count = 0;
    size_t begin = 0;
    for (const size_t end : hops.path_end) {
      const uint64_t length = end - begin;
      hop_count += length;
      t.max_hops = std::max<uint64_t>(t.max_hops, length);
      double latency_s = 0;
      for (size_t h = begin; h < end; ++h) {
        const uint64_t l = hops.link[h];
        const SystemDimension& link_dim = system.dimension_of_link(l);
        latency_s += link_dim.link_latency_s;
        t.max_sharing = std::max<uint64_t>(t.max_sharing, hops.sharing[h]);
        const double bandwidth = link_dim.link_bandwidth_bytes_per_s / hops.sharing[h];
        if (bandwidth < t.effective_bandwidth_bytes_per_s) {
          t.effective_bandwidth_bytes_per_s = bandwidth;
          t.bottleneck_link = l;
          t.bottleneck_tier = link_dim.tier;
        }
      }
      t.max_path_latency_s = std::max(t.max_path_latency_s, latency_s);
      begin = end;
    }
    t.mean_hops = static_cast<double>(hop_count) / static_cast<double>(t.edges);
    m.time_s[index_of(d)] = bytes[index_of(d)] / t.effective_bandwidth_bytes_per_s + t.max_path_latency_s;
  }
  for (double time : m.time_s) m.score_s += time;
  m.links = routed.links;
  return m;
}

bool same_shape(const SystemGraph& a, const SystemGraph& b) {
  const std::vector<SystemDimension>& x = a.dimensions();
  const std::vector<SystemDimension>& y = b.dimensions();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i].size != y[i].size || x[i].kind != y[i].kind || x[i].tier != y[i].tier) return false;
  }
  return true;
}

OrderingSearch DeviceMapper::best_ordering(const std::array<double, kParallelDimCount>& bytes) const {
  check_bytes(bytes);
  OrderingSearch search;
  // A dimension of size 1 moves no shard, so orderings that differ only in
  // where such dimensions stand place every shard alike: evaluate each
  // distinct order of the larger dimensions once and reuse it.
  std::vector<std::pair<std::vector<ParallelDim>, Mapping>> evaluated;
  for (const DimOrder& order : all_orderings()) {
    std::vector<ParallelDim> moving;
    for (ParallelDim dim : order) {
      if (dims_[dim] > 1) moving.push_back(dim);
    }
    Mapping m;
    auto same = std::find_if(evaluated.begin(), evaluated.end(), [&](const auto& e) { return e.first == moving; });
    if (same != evaluated.end()) {
      m = same->second;
      m.order = order;
    } else {
      m = evaluate(order, bytes);
      evaluated.emplace_back(moving, m);
    }
    // Strictly lower only: equal scores keep the earlier ordering.
    if (search.all.empty() || m.score_s < search.best.score_s) {
      search.best = m;
      search.best_index = search.all.size();
    }
    m.links.clear();
    m.links.shrink_to_fit();
    search.all.push_back(std::move(m));
  }
  return search;
}

OrderingSearch best_ordering(const ParallelDims& dims, const SystemGraph& system,
                             const std::array<double, kParallelDimCount>& bytes_per_dimension,
                             const MappingOptions& options) {
  return DeviceMapper(dims, system, options).best_ordering(bytes_per_dimension);
}

}  // namespace snr::pathfind
