#include "sim/chip.h"

namespace snr::sim {

ChipState::ChipState(uint32_t id, const hw::HwConfig& config)
    : chip_id(id),
      v(isa::kVectorRegisterCount),
      mxu(config.mxu_count),
      scalar_memory(config.smem_bytes.count, 4096),
      vmem(config.vmem_bytes(), 64 * 1024),
      hbm(config.hbm_bytes.count, 1u << 16) {}

}  // namespace snr::sim
