// Device blueprints the fabric blueprints embed by name.
#pragma once

namespace snr::infra::blueprint_names {
inline constexpr const char* kHost = "host";
inline constexpr const char* kSwitch = "switch";
}  // namespace snr::infra::blueprint_names
