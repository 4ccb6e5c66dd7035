// Writes a device description in the YAML that parse_device_yaml reads
// (docs/formats/pathfind-inputs.md), so a generated or preset device can be
// saved, edited and passed back with --hw. Values keep full precision: a
// round trip gives the same device.
#pragma once

#include <string>

#include "pathfind/inputs/device.h"

namespace snr::pathfind {

std::string format_device_yaml(const DeviceSpec& device);

}  // namespace snr::pathfind
