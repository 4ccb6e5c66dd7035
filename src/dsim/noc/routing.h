// Mesh routing functions, chosen by name from the network config (the
// Simple network's "modular routing function", seed 003 §4.5). A routing
// function only decides the next hop between routers of one GPU's mesh;
// endpoints and the scale-up switch are routed by the network itself.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace snr::dsim::noc {

enum class Direction : uint8_t { kEast = 0, kWest = 1, kNorth = 2, kSouth = 3 };

class MeshRouting {
 public:
  virtual ~MeshRouting() = default;
  // Next direction from router (x, y) toward (to_x, to_y) != (x, y).
  // Rows grow southward: y = 0 is the top row.
  [[nodiscard]] virtual Direction next(uint32_t x, uint32_t y, uint32_t to_x, uint32_t to_y) const = 0;
};

// Throws snr::Error naming the known functions for an unknown name.
std::unique_ptr<MeshRouting> make_routing(std::string_view name);
bool has_routing(std::string_view name);
std::string routing_names();  // "xy, yx"

}  // namespace snr::dsim::noc
