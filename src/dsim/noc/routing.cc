#include "dsim/noc/routing.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "common/error.h"

namespace snr::dsim::noc {

namespace {

// Dimension-order routing: all the way along X (columns) first, then Y.
// Deadlock-free on a mesh and the usual NoC baseline.
class XyRouting final : public MeshRouting {
 public:
  Direction next(uint32_t x, uint32_t y, uint32_t to_x, uint32_t to_y) const override {
    if (x != to_x) return to_x > x ? Direction::kEast : Direction::kWest;
    return to_y > y ? Direction::kSouth : Direction::kNorth;
  }
};

// Y first, then X: the mirror order (spreads I/O-bound traffic onto other links).
class YxRouting final : public MeshRouting {
 public:
  Direction next(uint32_t x, uint32_t y, uint32_t to_x, uint32_t to_y) const override {
    if (y != to_y) return to_y > y ? Direction::kSouth : Direction::kNorth;
    return to_x > x ? Direction::kEast : Direction::kWest;
  }
};

const std::map<std::string, std::function<std::unique_ptr<MeshRouting>()>, std::less<>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<MeshRouting>()>, std::less<>> known{
      {"xy", [] { return std::make_unique<XyRouting>(); }},
      {"yx", [] { return std::make_unique<YxRouting>(); }},
  };
  return known;
}

}  // namespace

bool has_routing(std::string_view name) {
  return registry().contains(name);
}

std::string routing_names() {
  std::string names;
  for (const auto& [name, make] : registry()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::unique_ptr<MeshRouting> make_routing(std::string_view name) {
  auto it = registry().find(name);
  if (it == registry().end()) throw Error(fmt::format("unknown routing '{}' (known: {})", name, routing_names()));
  return it->second();
}

}  // namespace snr::dsim::noc
