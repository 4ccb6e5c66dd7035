// The memory side of the GPU model: what a request does when it reaches
// memory (semaphore values, LL packet flags), and the deadlock report.
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"

namespace snr::dsim::gpu {

namespace ls = loadstore;

bool GpuModel::arrived(uint32_t tag) {
  Request& req = requests_[tag];
  switch (req.kind) {
    case ReqKind::kLoad:
      if (req.packet && !packet_covered(req.gpu, req.space, req.begin, req.end)) {
        packet_waiters_[size_t{req.gpu} * 3 + req.space].emplace(req.begin,
                                                                 PacketWaiter{req.end, packet_parked_++, tag});
        return false;
      }
      return true;
    case ReqKind::kStore:
      if (req.packet) answer_packet_waiters(req.gpu, req.space, mark_packet(req.gpu, req.space, req.begin, req.end));
      return true;
    case ReqKind::kAcquire:
      if (semaphore_values_[req.sync] > 0) {
        --semaphore_values_[req.sync];
        return true;
      }
      semaphore_waiters_[req.sync].push_back(tag);
      return false;
    case ReqKind::kRelease: {
      ++semaphore_values_[req.sync];
      auto& waiters = semaphore_waiters_[req.sync];
      size_t answered = 0;
      while (answered < waiters.size() && semaphore_values_[req.sync] > 0) {
        --semaphore_values_[req.sync];
        network_.respond(waiters[answered++]);
      }
      waiters.erase(waiters.begin(), waiters.begin() + static_cast<std::ptrdiff_t>(answered));
      return true;
    }
  }
  return true;
}

bool GpuModel::packet_covered(uint32_t gpu, uint8_t space, uint64_t begin, uint64_t end) const {
  const auto& intervals = packets_[size_t{gpu} * 3 + space];
  auto it = intervals.upper_bound(begin);
  if (it == intervals.begin()) return false;
  --it;
  return it->first <= begin && it->second >= end;
}

std::pair<uint64_t, uint64_t> GpuModel::mark_packet(uint32_t gpu, uint8_t space, uint64_t begin, uint64_t end) {
  auto& intervals = packets_[size_t{gpu} * 3 + space];
  auto it = intervals.upper_bound(begin);
  if (it != intervals.begin() && std::prev(it)->second >= begin) {
    --it;
    begin = it->first;
    end = std::max(end, it->second);
    it = intervals.erase(it);
  }
  while (it != intervals.end() && it->first <= end) {
    end = std::max(end, it->second);
    it = intervals.erase(it);
  }
  intervals.emplace(begin, end);
  return {begin, end};
}

// Parked loads were not covered before; the ones the grown interval
// [begin, end) now covers are answered, in the order they were parked.
void GpuModel::answer_packet_waiters(uint32_t gpu, uint8_t space, std::pair<uint64_t, uint64_t> grown) {
  auto& waiters = packet_waiters_[size_t{gpu} * 3 + space];
  const auto last = waiters.lower_bound(grown.second);
  std::vector<PacketWaiter>& covered = packet_answers_;
  covered.clear();
  for (auto it = waiters.lower_bound(grown.first); it != last;) {
    if (it->second.end <= grown.second) {
      covered.push_back(it->second);
      it = waiters.erase(it);
    } else {
      ++it;
    }
  }
  std::sort(covered.begin(), covered.end(),
            [](const PacketWaiter& x, const PacketWaiter& y) { return x.parked < y.parked; });
  for (const PacketWaiter& w : covered) network_.respond(w.tag);
}

std::string GpuModel::describe_wait(uint32_t slot_index) const {
  const Slot& slot = slots_[slot_index];
  std::string text;
  for (const Wave& w : slot.waves) {
    if (static_cast<Phase>(w.phase) == Phase::kDone) continue;
    const ls::GpuOp& op = program_.ops[w.op];
    std::string what;
    switch (static_cast<Phase>(w.phase)) {
      case Phase::kWaitSem: what = fmt::format("waits on {}", program_.names[program_.semaphores[op.sync].name]); break;
      case Phase::kWaitLoads: what = "waits for loads (LL packets never written?)"; break;
      case Phase::kBarrier:
        what = fmt::format("waits at {} ({} of {} arrived)", program_.names[program_.barriers[op.sync].name],
                           barrier_arrived_[op.sync], program_.barriers[op.sync].participants);
        break;
      case Phase::kNop: what = "waits at a NopOp"; break;
      case Phase::kWaitFence: what = "waits for its stores before a release"; break;
      default: what = "is blocked"; break;
    }
    text = fmt::format("{} {}", program_.where(w.op), what);
    break;  // the first unfinished wavefront says enough
  }
  return text;
}

const RunStats& GpuModel::finish() {
  std::vector<std::string> blocked;
  uint64_t unplaced = 0;
  for (const GpuState& g : gpus_) unplaced += g.pending.size() - g.next_pending;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].workgroup != ls::kNone) blocked.push_back(describe_wait(s));
  }
  if (!blocked.empty() || unplaced > 0) {
    std::string text = fmt::format("deadlock at {} ns: {} workgroups blocked, {} never placed", loop_.now() / 1000,
                                   blocked.size(), unplaced);
    for (size_t i = 0; i < blocked.size() && i < 8; ++i) text += "\n  " + blocked[i];
    if (blocked.size() > 8) text += fmt::format("\n  ... and {} more", blocked.size() - 8);
    throw Error(text);
  }
  return stats_;
}

}  // namespace snr::dsim::gpu
