#include "sim/dma_timing.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::sim {
namespace {
constexpr uint32_t kMemoryKinds = 3;
constexpr uint64_t kQ16 = 65536;

uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

// Cycle arithmetic saturates: a time past 2^64 cycles is "never", not a
// wrap to the past.
uint64_t saturating_add(uint64_t a, uint64_t b) {
  uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? UINT64_MAX : sum;
}

uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? UINT64_MAX : product;
}
}  // namespace

uint64_t dma_bytes_q16(uint64_t bytes) {
  uint64_t q16 = 0;
  if (__builtin_mul_overflow(bytes, kQ16, &q16)) {
    throw Error(fmt::format("a DMA of {} bytes exceeds what DMA timing counts (2^48 bytes)", bytes));
  }
  return q16;
}

DmaTiming::DmaTiming(const hw::HwConfig& config, const hw::Topology& topology, const EventBus& bus)
    : topology_(topology),
      bus_(bus),
      base_latency_cycles_(config.cycles_for(config.dma_base_latency)),
      hop_latency_cycles_(config.cycles_for(config.ici_hop_latency)),
      in_flight_(topology.chip_count(), 0) {
  for (uint32_t chip = 0; chip < topology.chip_count(); ++chip) {
    resource_bw_q16_.push_back(config.bytes_per_cycle_q16(config.smem_bandwidth));
    resource_bw_q16_.push_back(config.bytes_per_cycle_q16(config.vmem_bandwidth));
    resource_bw_q16_.push_back(config.bytes_per_cycle_q16(config.hbm_bandwidth));
  }
  for (size_t i = 0; i < topology.links().size(); ++i) {
    resource_bw_q16_.push_back(config.bytes_per_cycle_q16(config.ici_link_bandwidth));
  }
  resource_users_.assign(resource_bw_q16_.size(), 0);
}

uint32_t DmaTiming::memory_resource(uint32_t chip, MemoryKind kind) const {
  return chip * kMemoryKinds + static_cast<uint32_t>(kind);
}

uint32_t DmaTiming::link_for(const DmaRequest& request) {
  auto key = std::make_tuple(request.src_chip, request.src_memory, request.dst_chip, request.dst_memory);
  auto [it, inserted] = link_ids_.emplace(key, static_cast<uint32_t>(link_keys_.size()));
  if (inserted) {
    link_keys_.push_back(key);
    link_busy_.push_back(false);
    link_queue_.emplace_back();
  }
  return it->second;
}

std::string DmaTiming::link_name(uint32_t link_id) const {
  if (link_id >= link_keys_.size()) return "?";
  auto [src_chip, src_mem, dst_chip, dst_mem] = link_keys_[link_id];
  return fmt::format("chip{}.{}->chip{}.{}", src_chip, memory_kind_name(src_mem), dst_chip,
                     memory_kind_name(dst_mem));
}

void DmaTiming::publish(const Dma& dma, DmaPhase phase, uint64_t cycle) const {
  if (!bus_.dma.active()) return;
  const DmaRequest& r = dma.request;
  bus_.dma.publish(DmaEvent{r.issuing_chip, dma.id, phase, cycle, r.bytes, r.src_chip, r.src_memory, r.dst_chip,
                            r.dst_memory, dma.link_id, r.semaphore, r.pc, r.geometry()});
}

uint64_t DmaTiming::issue(uint64_t cycle, const DmaRequest& request) {
  if (request.src_chip >= topology_.chip_count() || request.dst_chip >= topology_.chip_count() ||
      request.issuing_chip >= topology_.chip_count()) {
    throw Error(fmt::format("DMA names chip {} -> {} in a {}-chip system", request.src_chip, request.dst_chip,
                            topology_.chip_count()));
  }
  advance_to(cycle);
  Dma dma;
  dma.id = next_id_++;
  dma.request = request;
  dma.link_id = link_for(request);
  dma.resources.push_back(memory_resource(request.src_chip, request.src_memory));
  dma.resources.push_back(memory_resource(request.dst_chip, request.dst_memory));
  const std::vector<uint32_t>& hops = topology_.route(request.src_chip, request.dst_chip);
  for (uint32_t link : hops) dma.resources.push_back(kMemoryKinds * topology_.chip_count() + link);
  dma.base_done_cycle =
      saturating_add(cycle, saturating_add(base_latency_cycles_, saturating_mul(hop_latency_cycles_, hops.size())));
  dma.remaining_q16 = dma_bytes_q16(request.bytes);
  ++in_flight_[request.issuing_chip];
  publish(dma, DmaPhase::kIssued, cycle);
  pending_.emplace(std::make_pair(dma.base_done_cycle, dma.id), std::move(dma));
  return next_id_ - 1;
}

void DmaTiming::start_transfer(Dma dma, uint64_t cycle) {
  link_busy_[dma.link_id] = true;
  for (uint32_t r : dma.resources) ++resource_users_[r];
  publish(dma, DmaPhase::kTransferStart, cycle);
  active_.push_back(std::move(dma));
}

void DmaTiming::recompute_rates() {
  for (Dma& dma : active_) {
    uint64_t rate = UINT64_MAX;
    for (uint32_t r : dma.resources) rate = std::min(rate, resource_bw_q16_[r] / resource_users_[r]);
    dma.rate_q16 = std::max<uint64_t>(rate, 1);
  }
}

uint64_t DmaTiming::next_completion_cycle() const {
  uint64_t best = UINT64_MAX;
  for (const Dma& dma : active_) best = std::min(best, saturating_add(now_, ceil_div(dma.remaining_q16, dma.rate_q16)));
  return best;
}

uint64_t DmaTiming::next_event_cycle() const {
  uint64_t best = next_completion_cycle();
  if (!pending_.empty()) best = std::min(best, pending_.begin()->first.first);
  return best;
}

void DmaTiming::progress_to(uint64_t cycle) {
  if (cycle <= now_) return;
  const uint64_t elapsed = cycle - now_;
  for (Dma& dma : active_) dma.remaining_q16 -= std::min(dma.remaining_q16, saturating_mul(dma.rate_q16, elapsed));
  now_ = cycle;
}

void DmaTiming::advance_to(uint64_t cycle) {
  while (true) {
    const uint64_t event = next_event_cycle();
    if (event > cycle) break;
    progress_to(event);
    // Completions first, so a link freed this cycle serves its FIFO head
    // before a DMA whose base latency ends in the same cycle.
    std::vector<Dma> done;
    for (auto it = active_.begin(); it != active_.end();) {
      if (it->remaining_q16 == 0) {
        done.push_back(std::move(*it));
        it = active_.erase(it);
      } else {
        ++it;
      }
    }
    std::sort(done.begin(), done.end(), [](const Dma& a, const Dma& b) { return a.id < b.id; });
    for (Dma& dma : done) {
      for (uint32_t r : dma.resources) --resource_users_[r];
      link_busy_[dma.link_id] = false;
      --in_flight_[dma.request.issuing_chip];
      publish(dma, DmaPhase::kTransferEnd, event);
      if (on_completion_) on_completion_(DmaCompletion{dma.id, dma.request, event});
      std::vector<Dma>& queue = link_queue_[dma.link_id];
      if (!queue.empty()) {
        Dma next = std::move(queue.front());
        queue.erase(queue.begin());
        --queued_count_;
        start_transfer(std::move(next), event);
      }
    }
    while (!pending_.empty() && pending_.begin()->first.first == event) {
      Dma dma = std::move(pending_.begin()->second);
      pending_.erase(pending_.begin());
      publish(dma, DmaPhase::kBaseLatencyDone, event);
      if (link_busy_[dma.link_id]) {
        link_queue_[dma.link_id].push_back(std::move(dma));
        ++queued_count_;
      } else {
        start_transfer(std::move(dma), event);
      }
    }
    recompute_rates();
  }
  progress_to(cycle);
}

}  // namespace snr::sim
