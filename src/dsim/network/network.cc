#include "dsim/network/network.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::dsim {

DimensionLayout::DimensionLayout(const NetworkConfig& config) {
  uint64_t stride = 1;
  for (const auto& dim : config.dimensions) {
    sizes_.push_back(dim.npus_count);
    strides_.push_back(stride);
    stride *= dim.npus_count;
  }
}

void NetworkBackend::set_bandwidth_factors(const LinkBandwidthFactors& /*factors*/) {
  throw Error(fmt::format("network backend {} does not model link bandwidth factors "
                          "(--perturbation-configuration links, npu_links, dimensions)",
                          name()));
}

void throw_too_many_in_flight(std::string_view backend) {
  throw Error(fmt::format("{} backend: more than 2^32 messages in flight", backend));
}

TimeNs checked_truncated_ns(double ns, std::string_view what) {
  // 2^63: leaves room for the event loop to add it to the current time.
  if (!(ns >= 0) || ns >= 9223372036854775808.0) {
    throw Error(fmt::format("{}: {:g} ns does not fit the simulator's clock (a bandwidth factor too small?)", what, ns));
  }
  return static_cast<TimeNs>(ns);
}

}  // namespace snr::dsim
