#include "dsim/network/network.h"

namespace snr::dsim {

DimensionLayout::DimensionLayout(const NetworkConfig& config) {
  uint64_t stride = 1;
  for (const auto& dim : config.dimensions) {
    sizes_.push_back(dim.npus_count);
    strides_.push_back(stride);
    stride *= dim.npus_count;
  }
}

int hops_in_dimension(TopologyKind topology, uint32_t size, uint32_t from, uint32_t to) {
  if (from == to) return 0;
  switch (topology) {
    case TopologyKind::kRing: {
      const uint32_t clockwise = to >= from ? to - from : to + size - from;
      const uint32_t anticlockwise = size - clockwise;
      return static_cast<int>(anticlockwise < clockwise ? anticlockwise : clockwise);
    }
    case TopologyKind::kFullyConnected: return 1;
    case TopologyKind::kSwitch: return 2;
  }
  return 0;
}

}  // namespace snr::dsim
