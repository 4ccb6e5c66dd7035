// Timing of the DMA engine, seed 000 §5.2 / Figure 4:
//
//   issue ──base latency (constant, overlaps across DMAs)──▶ queued on its
//   link ──waits for the link to be free (one transfer per link, FIFO)──▶
//   transfer: bytes / bandwidth, where bandwidth is the minimum over the
//   resources it uses (source memory, destination memory, each ICI link on
//   the route) of that resource's bandwidth shared equally among the
//   transfers active on it ──▶ complete.
//
// A "link" is a (source chip, source memory, destination chip, destination
// memory) pair. Progress is integer: bytes in 1/65536 units per cycle, so
// results are identical on every machine. The engine only schedules; data
// moves functionally at issue and completions are reported to a callback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "hw/config.h"
#include "hw/topology.h"
#include "sim/events.h"

namespace snr::sim {

struct DmaRequest {
  uint32_t issuing_chip = 0;
  uint32_t src_chip = 0;
  MemoryKind src_memory = MemoryKind::kHbm;
  uint32_t dst_chip = 0;
  MemoryKind dst_memory = MemoryKind::kVmem;
  uint64_t bytes = 0;  // total, rows * row_bytes
  // Exact regions (offsets within the source / destination memory), so
  // subscribers can tell which VMEM pages a DMA touched.
  uint64_t src_offset = 0;
  uint64_t dst_offset = 0;
  uint64_t rows = 1;
  uint64_t row_bytes = 0;
  uint64_t src_stride = 0;
  uint64_t dst_stride = 0;
  uint8_t semaphore = 0;
  uint64_t pc = 0;
  uint64_t src_address = 0;  // the global address operands as issued
  uint64_t dst_address = 0;

  [[nodiscard]] DmaGeometry geometry() const {
    return {src_address, dst_address, src_offset, dst_offset, rows, row_bytes, src_stride, dst_stride};
  }
};

struct DmaCompletion {
  uint64_t dma_id;
  DmaRequest request;
  uint64_t cycle;
};

// `bytes` in the engine's 1/65536-byte units; throws snr::Error when the
// product does not fit 64 bits (a DMA of 2^48 bytes or more).
uint64_t dma_bytes_q16(uint64_t bytes);

class DmaTiming {
 public:
  using CompletionCallback = std::function<void(const DmaCompletion&)>;

  DmaTiming(const hw::HwConfig& config, const hw::Topology& topology, const EventBus& bus);

  void on_completion(CompletionCallback callback) { on_completion_ = std::move(callback); }

  // Starts a DMA at `cycle` (>= the last advance). Returns its id.
  uint64_t issue(uint64_t cycle, const DmaRequest& request);
  // Processes every phase change up to and including `cycle`.
  void advance_to(uint64_t cycle);
  // Earliest cycle at which something will happen, or UINT64_MAX when idle.
  [[nodiscard]] uint64_t next_event_cycle() const;
  [[nodiscard]] uint64_t in_flight(uint32_t chip) const { return in_flight_[chip]; }
  [[nodiscard]] uint64_t in_flight_total() const { return pending_.size() + queued_count_ + active_.size(); }
  [[nodiscard]] std::string link_name(uint32_t link_id) const;
  // Cycles the engine of `chip` had at least one transfer moving data.

 private:
  struct Dma {
    uint64_t id;
    DmaRequest request;
    uint32_t link_id;
    uint64_t base_done_cycle;
    std::vector<uint32_t> resources;  // indices into resource_bw_q16_
    uint64_t remaining_q16 = 0;
    uint64_t rate_q16 = 0;
  };

  uint32_t link_for(const DmaRequest& request);
  uint32_t memory_resource(uint32_t chip, MemoryKind kind) const;
  void start_transfer(Dma dma, uint64_t cycle);
  void recompute_rates();
  void progress_to(uint64_t cycle);
  void publish(const Dma& dma, DmaPhase phase, uint64_t cycle) const;
  [[nodiscard]] uint64_t next_completion_cycle() const;

  const hw::Topology& topology_;
  const EventBus& bus_;
  CompletionCallback on_completion_;
  uint64_t base_latency_cycles_;
  uint64_t hop_latency_cycles_;
  std::vector<uint64_t> resource_bw_q16_;  // memories (3 per chip) then ICI links
  std::vector<uint32_t> resource_users_;
  std::map<std::tuple<uint32_t, MemoryKind, uint32_t, MemoryKind>, uint32_t> link_ids_;
  std::vector<std::tuple<uint32_t, MemoryKind, uint32_t, MemoryKind>> link_keys_;
  std::vector<bool> link_busy_;
  std::vector<std::vector<Dma>> link_queue_;  // FIFO per link, waiting for the link
  std::multimap<std::pair<uint64_t, uint64_t>, Dma> pending_;  // (base done cycle, id) -> dma
  std::vector<Dma> active_;
  uint64_t queued_count_ = 0;
  uint64_t now_ = 0;
  uint64_t next_id_ = 0;
  std::vector<uint64_t> in_flight_;
};

}  // namespace snr::sim
