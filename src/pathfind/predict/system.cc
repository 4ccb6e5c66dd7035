#include "pathfind/predict/system.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"

namespace snr::pathfind {
namespace {

// `shape_of` is the template's tier (null: a switch). `full`: the tier's
// devices are all in use, so the template's shape holds; otherwise a torus
// or mesh keeps its kind as one dimension of the devices in use, each link
// at what the full shape gives it (a node's lanes stay split over the links
// of the whole package, whether or not every neighbour is in use).
std::vector<SystemDimension> tier_dimensions(const NetworkTier& tier, size_t tier_index, uint64_t count,
                                             const age::TemplateNetworkTier* shape_of, bool full) {
  using Kind = SystemDimension::Kind;
  age::Topology topology = shape_of ? shape_of->topology : age::Topology::kSwitch;
  if (topology == age::Topology::kSwitch || topology == age::Topology::kCrossbar) {
    return {SystemDimension{count, Kind::kSwitch, tier_index, tier.bandwidth_bytes_per_s, 0}};
  }
  std::vector<uint64_t> whole = shape_of->shape.empty() ? std::vector<uint64_t>{tier.size} : shape_of->shape;
  std::vector<uint64_t> shape = {count};
  if (full && !shape_of->shape.empty()) {
    uint64_t product = 1;
    for (uint64_t s : shape_of->shape) product *= s;
    if (product != count) {
      throw Error(fmt::format("system: network tier '{}' has shape {} devices but the prediction needs {} there",
                              tier.name, product, count));
    }
    shape = shape_of->shape;
  }
  if (full) whole = shape;
  double links = 0;
  for (uint64_t s : whole) links += s > 1 ? 2 : 0;
  double per_link = links > 0 ? tier.bandwidth_bytes_per_s / links : tier.bandwidth_bytes_per_s;
  std::vector<SystemDimension> dims;
  for (uint64_t s : shape) {
    dims.push_back({s, topology == age::Topology::kTorus ? Kind::kRing : Kind::kLine, tier_index, per_link, 0});
  }
  return dims;
}

}  // namespace

SystemGraph build_system(const DeviceSpec& device, const age::ArchitectureTemplate* arch, uint64_t devices) {
  if (devices == 0) throw Error("system: needs at least one device");
  if (device.network.empty()) {
    if (devices == 1) return SystemGraph({SystemDimension{1, SystemDimension::Kind::kSwitch, 0, 1.0, 0}});
    throw Error(fmt::format("system: device '{}' has no network tier for {} devices", device.name, devices));
  }
  const age::TemplateNetworkTier* inner_shape = arch && arch->intra_package ? &*arch->intra_package : nullptr;
  const age::TemplateNetworkTier* outer_shape = arch && arch->inter_package ? &*arch->inter_package : nullptr;
  const NetworkTier& inner = device.network[0];
  uint64_t per_package = std::min<uint64_t>(inner.size, devices);
  if (devices % per_package != 0) {
    throw Error(fmt::format("system: {} devices do not fill whole packages of {} ({} tier size)", devices, per_package,
                            inner.name));
  }
  std::vector<SystemDimension> dims = tier_dimensions(inner, 0, per_package, inner_shape, per_package == inner.size);
  uint64_t packages = devices / per_package;
  if (packages > 1) {
    if (device.network.size() < 2) {
      throw Error(fmt::format("system: {} devices need {} packages but device '{}' has no tier between packages",
                              devices, packages, device.name));
    }
    const NetworkTier& outer = device.network[1];
    if (devices > outer.size) {
      throw Error(fmt::format("system: {} devices exceed the {} tier's size {}", devices, outer.name, outer.size));
    }
    for (SystemDimension& d : tier_dimensions(outer, 1, packages, outer_shape, true)) dims.push_back(d);
  }
  return SystemGraph(std::move(dims));
}

}  // namespace snr::pathfind
