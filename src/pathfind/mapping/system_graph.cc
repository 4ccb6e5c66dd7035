#include "pathfind/mapping/system_graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <utility>

#include "common/error.h"

namespace snr::pathfind {
namespace {

SystemGraph uniform(const std::vector<uint64_t>& sizes, SystemDimension::Kind kind, double bandwidth, size_t tier) {
  std::vector<SystemDimension> dims;
  for (uint64_t size : sizes) dims.push_back({size, kind, tier, bandwidth, 0.0});
  return SystemGraph(std::move(dims));
}

}  // namespace

SystemGraph::SystemGraph(std::vector<SystemDimension> dimensions) : dims_(std::move(dimensions)) {
  if (dims_.empty() || dims_.size() > kMaxSystemDimensions) {
    throw Error(fmt::format("system: needs 1..{} dimensions, got {}", kMaxSystemDimensions, dims_.size()));
  }
  for (size_t k = 0; k < dims_.size(); ++k) {
    const SystemDimension& d = dims_[k];
    if (d.size == 0 || d.size > kMaxSystemDimensionSize) {
      throw Error(fmt::format("system dimension {}: size must be in 1..{}, got {}", k, kMaxSystemDimensionSize, d.size));
    }
    if (!(d.link_bandwidth_bytes_per_s > 0) || !std::isfinite(d.link_bandwidth_bytes_per_s)) {
      throw Error(fmt::format("system dimension {}: link_bandwidth_bytes_per_s must be positive and finite, got {}", k,
                              d.link_bandwidth_bytes_per_s));
    }
    if (!(d.link_latency_s >= 0) || !std::isfinite(d.link_latency_s)) {
      throw Error(fmt::format("system dimension {}: link_latency_s must be non-negative and finite, got {}", k,
                              d.link_latency_s));
    }
    strides_.push_back(nodes_);
    // Both factors are at most 2^24 here, so the product cannot wrap.
    nodes_ *= d.size;
    if (nodes_ > kMaxSystemNodes) {
      throw Error(fmt::format("system: more than {} nodes (2^24) once dimension {} (size {}) is included",
                              kMaxSystemNodes, k, d.size));
    }
  }
}

std::vector<uint64_t> SystemGraph::coordinate(uint64_t node) const {
  if (node >= nodes_) throw Error(fmt::format("system: node {} is not below the {} nodes", node, nodes_));
  std::vector<uint64_t> c(dims_.size());
  for (size_t k = 0; k < dims_.size(); ++k) c[k] = node / strides_[k] % dims_[k].size;
  return c;
}

uint64_t SystemGraph::node(const std::vector<uint64_t>& coordinate) const {
  if (coordinate.size() != dims_.size()) {
    throw Error(fmt::format("system: a coordinate needs {} values, got {}", dims_.size(), coordinate.size()));
  }
  uint64_t id = 0;
  for (size_t k = 0; k < dims_.size(); ++k) {
    if (coordinate[k] >= dims_[k].size) {
      throw Error(fmt::format("system: coordinate {} = {} is not below the size {}", k, coordinate[k], dims_[k].size));
    }
    id += coordinate[k] * strides_[k];
  }
  return id;
}

uint64_t SystemGraph::link_id(const Link& link) const {
  if (link.node >= nodes_ || link.dimension >= dims_.size()) {
    throw Error(fmt::format("system: no link at node {} dimension {}", link.node, link.dimension));
  }
  return (link.node * dims_.size() + link.dimension) * 2 + static_cast<uint64_t>(link.direction);
}

Link SystemGraph::link(uint64_t id) const {
  if (id >= link_count()) throw Error(fmt::format("system: link id {} is not below {}", id, link_count()));
  const uint64_t port = id / 2;
  return {port / dims_.size(), static_cast<size_t>(port % dims_.size()),
          id % 2 == 0 ? LinkDirection::kPositive : LinkDirection::kNegative};
}

const SystemDimension& SystemGraph::dimension_of_link(uint64_t id) const { return dims_[link(id).dimension]; }

std::string SystemGraph::link_name(uint64_t id) const {
  const Link l = link(id);
  const bool positive = l.direction == LinkDirection::kPositive;
  const char* dir = dims_[l.dimension].kind == SystemDimension::Kind::kSwitch ? (positive ? "up" : "down")
                                                                              : (positive ? "+" : "-");
  return fmt::format("node {} ({}) dim {} {}", l.node, fmt::join(coordinate(l.node), ","), l.dimension, dir);
}

void SystemGraph::route(uint64_t from, uint64_t to, std::vector<uint64_t>& path) const {
  path.clear();
  if (from >= nodes_ || to >= nodes_) {
    throw Error(fmt::format("system: route {} -> {} leaves the {} nodes", from, to, nodes_));
  }
  const uint64_t dims = dims_.size();
  uint64_t cur = from;
  for (size_t k = 0; k < dims_.size(); ++k) {
    const uint64_t n = dims_[k].size;
    const uint64_t stride = strides_[k];
    const uint64_t a = cur / stride % n;
    const uint64_t b = to / stride % n;
    if (a == b) continue;
    auto port = [&](uint64_t node, LinkDirection dir) { return (node * dims + k) * 2 + static_cast<uint64_t>(dir); };
    if (dims_[k].kind == SystemDimension::Kind::kSwitch) {
      path.push_back(port(cur, LinkDirection::kPositive));
      cur = cur - a * stride + b * stride;
      path.push_back(port(cur, LinkDirection::kNegative));
      continue;
    }
    uint64_t steps = 0;
    bool positive = b > a;
    if (dims_[k].kind == SystemDimension::Kind::kRing) {
      const uint64_t forward = (b + n - a) % n;
      positive = forward <= n - forward;  // the tie of an even ring goes positive
      steps = positive ? forward : n - forward;
    } else {
      steps = positive ? b - a : a - b;
    }
    uint64_t pos = a;
    for (uint64_t s = 0; s < steps; ++s) {
      path.push_back(port(cur, positive ? LinkDirection::kPositive : LinkDirection::kNegative));
      const uint64_t next = positive ? (pos + 1) % n : (pos + n - 1) % n;
      cur = cur - pos * stride + next * stride;
      pos = next;
    }
  }
}

std::vector<uint64_t> SystemGraph::route(uint64_t from, uint64_t to) const {
  std::vector<uint64_t> path;
  route(from, to, path);
  return path;
}

SystemGraph torus(const std::vector<uint64_t>& sizes, double link_bandwidth_bytes_per_s, size_t tier) {
  return uniform(sizes, SystemDimension::Kind::kRing, link_bandwidth_bytes_per_s, tier);
}

SystemGraph mesh(const std::vector<uint64_t>& sizes, double link_bandwidth_bytes_per_s, size_t tier) {
  return uniform(sizes, SystemDimension::Kind::kLine, link_bandwidth_bytes_per_s, tier);
}

SystemDimension switch_dimension(uint64_t size, double link_bandwidth_bytes_per_s, size_t tier) {
  return {size, SystemDimension::Kind::kSwitch, tier, link_bandwidth_bytes_per_s, 0.0};
}

SystemGraph two_level(std::vector<SystemDimension> inside_package, std::vector<SystemDimension> between_packages) {
  if (inside_package.empty() || between_packages.empty()) {
    throw Error("two-level system: needs at least one dimension inside a package and one between packages");
  }
  std::vector<SystemDimension> dims;
  for (SystemDimension& d : inside_package) {
    d.tier = 0;
    dims.push_back(d);
  }
  for (SystemDimension& d : between_packages) {
    d.tier = 1;
    dims.push_back(d);
  }
  return SystemGraph(std::move(dims));
}

}  // namespace snr::pathfind
