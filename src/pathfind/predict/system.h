// The system graph a prediction maps its shards onto (seed 004 §5.2):
// `devices` accelerators, grouped into packages by the innermost network
// tier, packages joined by the next tier. With an architecture template the
// topologies (switch, crossbar, torus and mesh with their shape) come from
// it; with a bare device description both tiers are switches.
//
// Link bandwidth: a switch or crossbar port carries the tier's bandwidth
// per direction; a torus or mesh node splits it over its outgoing links
// (two per dimension of size > 1 of the whole package's shape, used or
// not), since the tier's figure is per device. A package only partly used
// keeps its torus or mesh as one ring or line of the devices in use.
#pragma once

#include <cstdint>

#include "pathfind/age/arch_template.h"
#include "pathfind/inputs/device.h"
#include "pathfind/mapping/system_graph.h"

namespace snr::pathfind {

// `arch` may be null. SystemDimension::tier indexes device.network.
// Throws naming the tier when the devices do not fill whole packages or a
// template shape does not match the count.
SystemGraph build_system(const DeviceSpec& device, const age::ArchitectureTemplate* arch, uint64_t devices);

}  // namespace snr::pathfind
