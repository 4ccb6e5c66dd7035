// The hardware side of seed 004 §5.2: a system graph built as a product of
// dimensions (torus rings, mesh lines, switches), addressed by coordinates,
// with dimension-order (X-Y) routing onto directed links. Two-level systems
// (a switch or torus inside a package, a torus of packages) are the same
// product with a tier label on each dimension.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace snr::pathfind {

struct SystemDimension {
  enum class Kind {
    kRing,    // torus dimension: neighbours at +-1 with wrap-around
    kLine,    // mesh dimension: neighbours at +-1, no wrap-around
    kSwitch,  // every node one hop from a switch: any path is up + down, two links
  };
  uint64_t size = 1;
  Kind kind = Kind::kRing;
  // Which network the dimension belongs to (0 intra-package, 1 inter-package,
  // or an index into DeviceSpec::network); a label reported with results.
  size_t tier = 0;
  double link_bandwidth_bytes_per_s = 1.0;  // per directed link
  double link_latency_s = 0;                // per link a path crosses
};

inline constexpr uint64_t kMaxSystemDimensionSize = uint64_t{1} << 20;
inline constexpr uint64_t kMaxSystemNodes = uint64_t{1} << 24;
inline constexpr size_t kMaxSystemDimensions = 16;

// A directed link. In a ring or line, kPositive leaves `node` towards
// coordinate +1 and kNegative towards -1. In a switch dimension, kPositive is
// the node's up port (node -> switch) and kNegative its down port (switch -> node).
enum class LinkDirection : uint8_t { kPositive = 0, kNegative = 1 };
struct Link {
  uint64_t node = 0;
  size_t dimension = 0;
  LinkDirection direction = LinkDirection::kPositive;
  friend bool operator==(const Link&, const Link&) = default;
};

class SystemGraph {
 public:
  // Validates: 1..16 dimensions, sizes in 1..2^20, at most 2^24 nodes,
  // bandwidth > 0 and latency >= 0, both finite; errors name the dimension and field.
  explicit SystemGraph(std::vector<SystemDimension> dimensions);

  [[nodiscard]] const std::vector<SystemDimension>& dimensions() const { return dims_; }
  [[nodiscard]] uint64_t node_count() const { return nodes_; }
  // Node ids enumerate coordinates with the first dimension varying fastest.
  [[nodiscard]] std::vector<uint64_t> coordinate(uint64_t node) const;
  [[nodiscard]] uint64_t node(const std::vector<uint64_t>& coordinate) const;

  // Link ids are dense: (node * dimensions + dimension) * 2 + direction. Ids
  // of links that do not exist (a line's ends, size-1 dimensions) are never routed.
  [[nodiscard]] uint64_t link_count() const { return nodes_ * dims_.size() * 2; }
  [[nodiscard]] uint64_t link_id(const Link& link) const;
  [[nodiscard]] Link link(uint64_t id) const;
  [[nodiscard]] const SystemDimension& dimension_of_link(uint64_t id) const;
  // "node 13 (5,1) dim 0 +", "... dim 2 up": for messages and reports.
  [[nodiscard]] std::string link_name(uint64_t id) const;

  // Dimension-order routing: correct dimension 0 first, then 1, ... In a ring
  // take the shorter direction (a tie goes positive); in a switch dimension go
  // up from the current node and down to the node with the target's
  // coordinate. Appends the directed link ids to `path` (cleared first).
  void route(uint64_t from, uint64_t to, std::vector<uint64_t>& path) const;
  [[nodiscard]] std::vector<uint64_t> route(uint64_t from, uint64_t to) const;

 private:
  std::vector<SystemDimension> dims_;
  std::vector<uint64_t> strides_;  // node-id step of +1 in each dimension
  uint64_t nodes_ = 1;
};

// Single-tier systems with the same links everywhere, e.g. torus({8, 6}).
// The default unit bandwidth makes effective bandwidths read as fractions of a link.
SystemGraph torus(const std::vector<uint64_t>& sizes, double link_bandwidth_bytes_per_s = 1.0, size_t tier = 0);
SystemGraph mesh(const std::vector<uint64_t>& sizes, double link_bandwidth_bytes_per_s = 1.0, size_t tier = 0);
SystemDimension switch_dimension(uint64_t size, double link_bandwidth_bytes_per_s = 1.0, size_t tier = 0);

// Devices inside a package (fastest-varying, tier 0) times packages (tier 1):
// e.g. two_level({switch_dimension(8, nvlink)}, torus({4, 4}, fabric).dimensions()).
// The tiers of the arguments are overwritten.
SystemGraph two_level(std::vector<SystemDimension> inside_package, std::vector<SystemDimension> between_packages);

}  // namespace snr::pathfind
