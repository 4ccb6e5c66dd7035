#include "metrics/wait_stall.h"

#include <algorithm>
#include <tuple>
#include <vector>

namespace snr::metrics {

void split_wait_stall(std::span<WaitedDma> consumed) {
  std::vector<size_t> by_completion(consumed.size());
  for (size_t i = 0; i < consumed.size(); ++i) by_completion[i] = i;
  std::sort(by_completion.begin(), by_completion.end(), [&](size_t a, size_t b) {
    return std::tie(consumed[a].transfer_end_cycle, consumed[a].dma_id) <
           std::tie(consumed[b].transfer_end_cycle, consumed[b].dma_id);
  });
  uint64_t charged_until = 0;
  for (size_t i : by_completion) {
    WaitedDma& d = consumed[i];
    d.base_stall_cycles = d.transfer_stall_cycles = d.slack_cycles = 0;
    if (d.wait_start_cycle >= d.transfer_end_cycle) {
      d.slack_cycles = d.wait_start_cycle - d.transfer_end_cycle;
      continue;
    }
    const uint64_t from = std::max(d.wait_start_cycle, charged_until);
    const uint64_t to = std::min(d.transfer_end_cycle, d.wait_end_cycle);
    if (to <= from) continue;
    const uint64_t stall = to - from;
    d.base_stall_cycles = d.base_done_cycle > from ? std::min(d.base_done_cycle - from, stall) : 0;
    d.transfer_stall_cycles = stall - d.base_stall_cycles;
    charged_until = to;
  }
}

}  // namespace snr::metrics
