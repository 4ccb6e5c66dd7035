// The NoC-level "Simple" network's topology (seed 003 §4.5, §5.1): inside
// each GPU a mesh of routers with compute units, HBM channels and I/O ports
// attached to them; between GPUs, every I/O port reaches the same-numbered
// port of every other GPU through a scale-up switch plane.
//
// Read from a hierarchical YAML file (see docs/gpu-model.md) or a preset.
// The preset "generic-448" is the paper's GPU: 8x4 routers (8 columns,
// 4 rows) with 1 TiB/s links and 4 CUs each (128 CUs); the 8 top and the 8
// bottom routers hold 16 HBM channels each (256 channels, 4 TiB/s in all);
// the 4 left and 4 right routers hold 4 I/O ports each (32 ports, 1 TiB/s
// scale-up in all, 1 us link latency). 32 routers + 128 + 256 + 32 = 448
// endpoints, the count §5.1 gives.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/loadstore/protocols.h"

namespace snr::dsim::noc {

enum class Side : uint8_t { kTop, kBottom, kLeft, kRight };

struct LinkSpec {
  double bandwidth_gib_per_s = 1024;
  double latency_ns = 0;
};

struct NocConfig {
  std::string name = "generic-448";
  uint32_t columns = 8, rows = 4;
  std::string routing = "xy";        // by name, see routing.h
  std::string arbitration = "fifo";  // by name, see arbitration.h
  LinkSpec router_link{1024, 1};     // between neighbouring routers, each direction
  uint32_t cus_per_router = 4;
  LinkSpec cu_link{1024, 0};  // CU <-> its router
  std::vector<Side> hbm_sides{Side::kTop, Side::kBottom};
  uint32_t hbm_per_router = 16;
  LinkSpec hbm_link{16, 0};  // channel <-> router: the channel's bandwidth
  double hbm_access_latency_ns = 100;
  std::vector<Side> io_sides{Side::kLeft, Side::kRight};
  uint32_t io_per_router = 4;
  LinkSpec io_link{32, 0};           // port <-> router, on chip
  LinkSpec scale_up_link{32, 1000};  // port -> switch plane (the latency) and plane -> port
  // Switch multicast (NVSwitch multimem): a plane takes one request for a
  // group of GPUs, fans it out to their ports and answers once. A
  // reduce-load's answer waits for the plane's reduction engine, which
  // combines one line at a time at `switch_reduce.bandwidth_gib_per_s` (of
  // the line's bytes) and adds `switch_reduce.latency_ns`.
  bool scale_up_multicast = false;
  LinkSpec switch_reduce{1024, 0};

  [[nodiscard]] uint32_t routers() const { return columns * rows; }
  [[nodiscard]] std::vector<uint32_t> side_routers(const std::vector<Side>& sides) const;
  [[nodiscard]] uint32_t compute_units() const { return routers() * cus_per_router; }
  [[nodiscard]] uint32_t hbm_channels() const {
    return static_cast<uint32_t>(side_routers(hbm_sides).size()) * hbm_per_router;
  }
  [[nodiscard]] uint32_t io_ports() const {
    return static_cast<uint32_t>(side_routers(io_sides).size()) * io_per_router;
  }
  // Routers, CUs, HBM channels and I/O ports of one GPU.
  [[nodiscard]] uint32_t endpoints() const { return routers() + compute_units() + hbm_channels() + io_ports(); }
};

std::vector<std::string> noc_presets();
// Whether `name` is one of noc_presets() (a GPU preset of the same name is
// the GPU that network belongs to).
bool is_noc_preset(std::string_view name);
NocConfig noc_config_preset(std::string_view name);

// Strict reader: unknown keys, wrong types and out-of-range numbers are
// errors naming the key path ("hbm.per_router") and line. Keys at the top
// level or under `network:` (a combined file may hold `gpu:` too).
NocConfig parse_noc_config(std::string_view yaml_text, std::string_view source_name,
                           const NocConfig& base = NocConfig{});

// A preset name, or else a YAML file path.
NocConfig load_noc_config(const std::string& preset_or_path);

// §3.2's α and B for one GPU: the scale-up latency, and every I/O port's
// bandwidth together.
inline loadstore::AlphaBetaLink scale_up_alpha_beta(const NocConfig& network) {
  constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
  return {network.io_ports() * network.scale_up_link.bandwidth_gib_per_s * kBytesPerGiB,
          network.scale_up_link.latency_ns * 1e-9};
}

}  // namespace snr::dsim::noc
