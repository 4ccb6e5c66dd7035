#include "hw/topology.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "common/error.h"

namespace snr::hw {
namespace {

uint32_t most_square_width(uint32_t n) {
  uint32_t best = 1;
  for (uint32_t w = 1; w * w <= n; ++w) {
    if (n % w == 0) best = w;
  }
  return n / best;  // width >= height
}

// Steps from `from` to `to` on a ring of `n` the shorter way (+1 on a tie).
int ring_step(uint32_t from, uint32_t to, uint32_t n) {
  uint32_t forward = (to + n - from) % n;
  return forward <= n - forward ? +1 : -1;
}

}  // namespace

Topology::Topology(const HwConfig& config)
    : kind_(config.topology), chip_count_(static_cast<uint32_t>(config.chip_count)) {
  if (chip_count_ == 0) throw Error("topology: chips must be at least 1");
  if (kind_ == TopologyKind::kTorus2d) {
    width_ = config.torus_width != 0 ? static_cast<uint32_t>(config.torus_width) : most_square_width(chip_count_);
    if (chip_count_ % width_ != 0) {
      throw Error(fmt::format("topology: torus width {} does not divide {} chips", width_, chip_count_));
    }
    height_ = chip_count_ / width_;
  }
  routes_.resize(static_cast<size_t>(chip_count_) * chip_count_);
  for (uint32_t from = 0; from < chip_count_; ++from) {
    for (uint32_t to = 0; to < chip_count_; ++to) routes_[from * chip_count_ + to] = compute_route(from, to);
  }
  std::vector<std::set<uint32_t>> neighbours(chip_count_);
  for (const Link& link : links_) neighbours[link.from_chip].insert(link.to_chip);
  for (uint32_t chip = 0; chip < chip_count_; ++chip) {
    if (neighbours[chip].size() > config.ici_links_per_chip) {
      throw Error(fmt::format("topology: {} needs {} links on chip {}, but ici.links_per_chip is {}",
                              describe(), neighbours[chip].size(), chip, config.ici_links_per_chip));
    }
  }
}

uint32_t Topology::link_id(uint32_t from, uint32_t to) {
  for (uint32_t i = 0; i < links_.size(); ++i) {
    if (links_[i].from_chip == from && links_[i].to_chip == to) return i;
  }
  links_.push_back({from, to});
  return static_cast<uint32_t>(links_.size() - 1);
}

std::vector<uint32_t> Topology::compute_route(uint32_t from, uint32_t to) {
  std::vector<uint32_t> hops;
  if (from == to) return hops;
  switch (kind_) {
    case TopologyKind::kFullyConnected:
      hops.push_back(link_id(from, to));
      break;
    case TopologyKind::kRing: {
      int step = ring_step(from, to, chip_count_);
      for (uint32_t at = from; at != to;) {
        uint32_t next = (at + chip_count_ + static_cast<uint32_t>(step)) % chip_count_;
        hops.push_back(link_id(at, next));
        at = next;
      }
      break;
    }
    case TopologyKind::kTorus2d: {
      uint32_t x = from % width_, y = from / width_;
      const uint32_t tx = to % width_, ty = to / width_;
      while (x != tx) {
        int step = ring_step(x, tx, width_);
        uint32_t nx = (x + width_ + static_cast<uint32_t>(step)) % width_;
        hops.push_back(link_id(y * width_ + x, y * width_ + nx));
        x = nx;
      }
      while (y != ty) {
        int step = ring_step(y, ty, height_);
        uint32_t ny = (y + height_ + static_cast<uint32_t>(step)) % height_;
        hops.push_back(link_id(y * width_ + x, ny * width_ + x));
        y = ny;
      }
      break;
    }
  }
  return hops;
}

const std::vector<uint32_t>& Topology::route(uint32_t from, uint32_t to) const {
  if (from >= chip_count_ || to >= chip_count_) {
    throw Error(fmt::format("topology: no route from chip {} to chip {} in a {}-chip system", from, to,
                            chip_count_));
  }
  return routes_[from * chip_count_ + to];
}

std::string Topology::describe() const {
  if (kind_ == TopologyKind::kTorus2d) return fmt::format("torus2d {}x{}", width_, height_);
  return fmt::format("{} of {}", topology_kind_name(kind_), chip_count_);
}

}  // namespace snr::hw
