#include "analyze/saving_model.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

namespace snr::analyze {

namespace {
constexpr uint32_t kNone = RunIndex::kNone;
}

SavingModel::SavingModel(const RunIndex& index, uint32_t chip, uint64_t max_outstanding_dmas)
    : index_(index), max_outstanding_(max_outstanding_dmas) {
  const std::span<const uint32_t> stream = index.chip_stream(chip);
  stream_.assign(stream.begin(), stream.end());
  const size_t n = stream_.size();
  const auto& dmas = index.data().dmas;

  dma_at_.assign(n, kNone);
  for (uint32_t p = 0; p < n; ++p) {
    const uint32_t k = index.dma_of_step(index.instruction(stream_[p]).step);
    if (k != kNone && dmas[k].chip == chip) dma_at_[p] = k;
  }

  // A WAIT is re-timed only when every DMA it consumed was issued by this
  // chip: a WAIT on another chip's DMA or signal follows that chip, which
  // runs the same text and is assumed to shift like this one, so its
  // recorded stall stays as it is.
  std::vector<std::vector<uint32_t>> consumed(n);
  std::vector<bool> foreign(n, false);
  for (uint32_t k = 0; k < dmas.size(); ++k) {
    const rundb::DmaRecord& d = dmas[k];
    if (!d.waited || d.wait_chip != chip) continue;
    const uint32_t w = index.instruction_of_step(d.wait_step);
    if (w == kNone) continue;
    const uint32_t p = index.position_in_chip(w);
    consumed[p].push_back(k);
    if (d.chip != chip) foreign[p] = true;
  }
  wait_begin_.assign(n + 1, 0);
  wait_lag_cycles_.assign(n, 0);
  stall_free_cycle_.assign(n, 0);
  uint64_t modeled_so_far = 0;
  for (uint32_t p = 0; p < n; ++p) {
    const rundb::InstructionRecord& inst = index.instruction(stream_[p]);
    wait_begin_[p] = static_cast<uint32_t>(wait_dmas_.size());
    uint64_t modeled = 0;
    if (!consumed[p].empty() && !foreign[p]) {
      wait_dmas_.insert(wait_dmas_.end(), consumed[p].begin(), consumed[p].end());
      if (inst.stall_reason == "semaphore-wait") modeled = inst.stall_cycles;
      uint64_t last_end = 0;
      for (uint32_t k : consumed[p]) last_end = std::max(last_end, dmas[k].transfer_end_cycle);
      // The cycles between the last completion and the WAIT issuing
      // (semaphore visibility), kept when the order changes.
      if (modeled > 0 && inst.issue_cycle > last_end) wait_lag_cycles_[p] = inst.issue_cycle - last_end;
    } else if (dma_at_[p] != kNone && inst.stall_reason == "dma-queue-full") {
      modeled = inst.stall_cycles;
    }
    modeled_so_far += modeled;
    stall_free_cycle_[p] = inst.issue_cycle > modeled_so_far ? inst.issue_cycle - modeled_so_far : 0;
  }
  wait_begin_[n] = static_cast<uint32_t>(wait_dmas_.size());
  recorded_stall_cycles_ = modeled_so_far;

  std::unordered_map<std::string, uint32_t> link_ids;
  link_of_dma_.resize(dmas.size());
  for (uint32_t k = 0; k < dmas.size(); ++k) {
    const auto [it, added] = link_ids.emplace(dmas[k].link, static_cast<uint32_t>(link_ids.size()));
    link_of_dma_[k] = it->second;
    if (added) other_traffic_.emplace_back();
    if (dmas[k].chip != chip) {
      const rundb::DmaRecord& d = dmas[k];
      other_traffic_[it->second].push_back({d.base_done_cycle, d.transfer_end_cycle - d.transfer_start_cycle});
    }
  }
  for (auto& traffic : other_traffic_) {
    std::stable_sort(traffic.begin(), traffic.end(),
                     [](const Transfer& a, const Transfer& b) { return a.arrival_cycle < b.arrival_cycle; });
  }
}

std::vector<uint32_t> SavingModel::new_order(const std::vector<PositionMove>& moves, std::vector<bool>& moved) const {
  // A doubly linked list over the positions, sentinel n: each move unlinks
  // its group and relinks it before `before`, so a suggestion with many
  // moves costs O(stream + moved) rather than a copy per move.
  const uint32_t n = static_cast<uint32_t>(stream_.size());
  std::vector<uint32_t> next(n + 1), prev(n + 1);
  for (uint32_t p = 0; p <= n; ++p) {
    next[p] = p == n ? 0 : p + 1;
    prev[p] = p == 0 ? n : p - 1;
  }
  if (n == 0) next[n] = prev[n] = n;
  moved.assign(n, false);
  std::vector<bool> in_group(n, false);
  for (const PositionMove& move : moves) {
    if (move.before >= n) continue;
    for (uint32_t p : move.positions) {
      if (p < n) in_group[p] = true;
    }
    // A `before` listed among the moved positions: the group starts where it was.
    uint32_t anchor = move.before;
    while (anchor != n && in_group[anchor]) anchor = next[anchor];
    for (uint32_t p : move.positions) {
      if (p >= n) continue;
      next[prev[p]] = next[p];
      prev[next[p]] = prev[p];
    }
    for (uint32_t p : move.positions) {
      if (p >= n) continue;
      prev[p] = prev[anchor];
      next[p] = anchor;
      next[prev[anchor]] = p;
      prev[anchor] = p;
      moved[p] = true;
      in_group[p] = false;
    }
  }
  std::vector<uint32_t> order;
  order.reserve(n);
  for (uint32_t p = next[n]; p != n; p = next[p]) order.push_back(p);
  return order;
}

int64_t SavingModel::predicted_saving_cycles(const std::vector<PositionMove>& moves) const {
  const size_t n = stream_.size();
  if (n == 0) return 0;
  const auto& dmas = index_.data().dmas;
  std::vector<bool> moved;
  const std::vector<uint32_t> order = new_order(moves, moved);

  // A moved instruction runs when the first instruction that stays after
  // it would have: it takes that one's stall-free time.
  std::vector<uint64_t> nominal(n, stall_free_cycle_.back());
  uint64_t following = stall_free_cycle_.back();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!moved[*it]) following = stall_free_cycle_[*it];
    nominal[*it] = following;
  }

  uint64_t stalls = 0;  // modeled stalls of the new order so far
  std::vector<uint64_t> end_cycle(dmas.size());
  for (size_t k = 0; k < dmas.size(); ++k) end_cycle[k] = dmas[k].transfer_end_cycle;
  std::vector<uint64_t> link_free(other_traffic_.size(), 0);
  std::vector<size_t> traffic_next(other_traffic_.size(), 0);
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> in_flight;  // completion cycles
  for (const uint32_t p : order) {
    uint64_t now = nominal[p] + stalls;
    if (const uint32_t k = dma_at_[p]; k != kNone) {
      while (!in_flight.empty() && in_flight.top() <= now) in_flight.pop();
      if (max_outstanding_ > 0 && in_flight.size() >= max_outstanding_) {
        stalls += in_flight.top() - now;
        now = in_flight.top();
        while (!in_flight.empty() && in_flight.top() <= now) in_flight.pop();
      }
      const rundb::DmaRecord& d = dmas[k];
      const uint64_t arrival = now + (d.base_done_cycle - d.issue_cycle);
      const uint32_t link = link_of_dma_[k];
      // Other chips' transfers that reached the link first go first.
      uint64_t free = link_free[link];
      const std::vector<Transfer>& traffic = other_traffic_[link];
      size_t& t = traffic_next[link];
      for (; t < traffic.size() && traffic[t].arrival_cycle <= arrival; ++t) {
        free = std::max(free, traffic[t].arrival_cycle) + traffic[t].duration_cycles;
      }
      end_cycle[k] = std::max(arrival, free) + (d.transfer_end_cycle - d.transfer_start_cycle);
      link_free[link] = end_cycle[k];
      in_flight.push(end_cycle[k]);
    }
    if (wait_begin_[p] != wait_begin_[p + 1]) {
      uint64_t last_end = 0;
      for (uint32_t w = wait_begin_[p]; w < wait_begin_[p + 1]; ++w) last_end = std::max(last_end, end_cycle[wait_dmas_[w]]);
      const uint64_t done = std::max(now, last_end + wait_lag_cycles_[p]);
      stalls += done - now;
    }
  }
  return static_cast<int64_t>(recorded_stall_cycles_) - static_cast<int64_t>(stalls);
}

}  // namespace snr::analyze
