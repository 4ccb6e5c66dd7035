#include "pathfind/emit/npu_config.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"

namespace snr::pathfind {

hw::HwConfig npu_config(const DeviceSpec& device, uint64_t chips) {
  if (device.mcu_rows != 128 || device.mcu_cols != 128) {
    throw Error(fmt::format("npu config: the NPU's matrix units are 128x128; device '{}' has {}x{} MCUs", device.name,
                            device.mcu_rows, device.mcu_cols));
  }
  if (device.levels.size() < 3) {
    throw Error(fmt::format("npu config: device '{}' needs registers, VMEM and HBM levels", device.name));
  }
  hw::HwConfig c = hw::preset("tpu-v4-like");
  c.preset_name = device.name;
  const MemoryLevel& vmem = device.levels[device.levels.size() - 2];
  const double vmem_bytes = vmem.capacity_bytes * device.instances(vmem.scope);
  const double vmem_block_bytes = static_cast<double>(c.vmem_page_bytes.count * c.vmem_pages_per_block);
  const NetworkTier* ici = device.network.empty() ? nullptr : &device.network.front();
  auto set = [&](std::string_view key, const std::string& value) {
    with_error_context(fmt::format("npu config from device '{}'", device.name), [&] { c.set(key, value); });
  };
  set("chips", std::to_string(chips));
  set("clock", fmt::format("{}Hz", device.frequency_hz));
  set("mxu.count", std::to_string(device.mcu_count()));
  set("vmem.blocks", std::to_string(static_cast<uint64_t>(std::floor(vmem_bytes / vmem_block_bytes))));
  set("vmem.bandwidth",
      fmt::format("{}B/s", vmem.bandwidth_bytes_per_s * device.instances(vmem.scope) / kNpuVmemReadToDmaRatio));
  set("hbm.bytes", std::to_string(std::llround(device.main_memory().capacity_bytes)));
  set("hbm.bandwidth", fmt::format("{}B/s", device.main_memory().bandwidth_bytes_per_s));
  if (ici) {
    set("ici.link_bandwidth",
        fmt::format("{}B/s", ici->bandwidth_bytes_per_s / static_cast<double>(c.ici_links_per_chip)));
    set("ici.hop_latency", fmt::format("{}ps", std::llround(ici->latency_s * 1e12)));
  }
  c.validate();
  return c;
}

}  // namespace snr::pathfind
