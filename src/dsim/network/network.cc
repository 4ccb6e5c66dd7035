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

}  // namespace snr::dsim
