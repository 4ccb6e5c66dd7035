// Chips and the directed ICI links between them, with the route a remote
// DMA takes. Routing is fixed (shortest way round a ring, X-then-Y on a 2-D
// torus, direct on a fully connected system) so timing is deterministic.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hw/config.h"

namespace snr::hw {

struct Link {
  uint32_t from_chip = 0;
  uint32_t to_chip = 0;
};

class Topology {
 public:
  // Throws snr::Error when the shape does not fit (e.g. more neighbours than
  // ici.links_per_chip, a torus width that does not divide the chip count).
  explicit Topology(const HwConfig& config);

  [[nodiscard]] uint32_t chip_count() const { return chip_count_; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  // Directed link ids from `from` to `to`, in hop order; empty when equal.
  [[nodiscard]] const std::vector<uint32_t>& route(uint32_t from, uint32_t to) const;
  [[nodiscard]] uint32_t torus_width() const { return width_; }
  [[nodiscard]] std::string describe() const;

 private:
  uint32_t link_id(uint32_t from, uint32_t to);
  std::vector<uint32_t> compute_route(uint32_t from, uint32_t to);

  TopologyKind kind_;
  uint32_t chip_count_ = 0;
  uint32_t width_ = 0;
  uint32_t height_ = 0;
  std::vector<Link> links_;
  std::vector<std::vector<uint32_t>> routes_;  // [from * n + to]
};

}  // namespace snr::hw
