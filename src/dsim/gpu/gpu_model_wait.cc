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
      if (req.packet && !packet_flags_.covered(req.gpu * 3 + req.space, req.begin, req.end)) {
        packet_flags_.park(req.gpu * 3 + req.space, req.begin, req.end, tag);
        return false;
      }
      return true;
    case ReqKind::kStore:
      if (req.packet) {
        packet_flags_.arrive(req.gpu * 3 + req.space, req.begin, req.end, packet_answers_);
        for (uint32_t answered : packet_answers_) network_.respond(answered);
      }
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

std::string GpuModel::stall_description() const {
  std::vector<std::string> blocked;
  uint64_t unplaced = 0;
  for (const GpuState& g : gpus_) unplaced += g.pending.size() - g.next_pending;
  for (uint32_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s].workgroup != ls::kNone) blocked.push_back(describe_wait(s));
  }
  if (blocked.empty() && unplaced == 0) return {};
  std::string text = fmt::format("deadlock at {} ns: {} workgroups blocked, {} never placed", loop_.now() / 1000,
                                 blocked.size(), unplaced);
  for (size_t i = 0; i < blocked.size() && i < 8; ++i) text += "\n  " + blocked[i];
  if (blocked.size() > 8) text += fmt::format("\n  ... and {} more", blocked.size() - 8);
  return text;
}

const RunStats& GpuModel::finish() {
  if (std::string stall = stall_description(); !stall.empty()) throw Error(stall);
  return stats_;
}

}  // namespace snr::dsim::gpu
