// The GPU model's request issue: one cache-line request of a wavefront
// (a load, a store or a semaphore access) into the network, with its
// statistics. A multicast range goes out as one switch access where the
// network carries them, else as one request per member GPU (loop_of()).
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"

namespace snr::dsim::gpu {

namespace ls = loadstore;

uint32_t GpuModel::new_request() {
  if (free_request_ == UINT32_MAX) {
    requests_.emplace_back();
    free_request_ = static_cast<uint32_t>(requests_.size() - 1);
    requests_.back().next_free = UINT32_MAX;
  }
  const uint32_t tag = free_request_;
  free_request_ = requests_[tag].next_free;
  ++in_flight_;
  stats_.max_in_flight = std::max(stats_.max_in_flight, in_flight_);
  return tag;
}

void GpuModel::send(uint32_t tag, uint32_t src_gpu, uint32_t src_cu, uint32_t dst_gpu, uint64_t line,
                    uint32_t req_bytes, uint32_t resp_bytes, MessageClass req_class, MessageClass resp_class,
                    Multicast op, uint32_t group) {
  GpuStats& g = stats_.gpus[src_gpu];
  ++g.requests;
  ++stats_.requests;
  (req_class == MessageClass::kControl ? g.control_bytes : g.data_bytes) += req_bytes;
  (resp_class == MessageClass::kControl ? g.control_bytes : g.data_bytes) += resp_bytes;
  // A multicast access leaves the GPU (its own line too goes through the switch).
  (dst_gpu == src_gpu ? g.local_bytes : g.remote_bytes) += uint64_t{req_bytes} + resp_bytes;
  if (dst_gpu != kSwitchTarget) {
    network_.send(tag, Access{src_gpu, src_cu, dst_gpu, line, req_bytes, resp_bytes, req_class, resp_class});
    return;
  }
  Access access{src_gpu, src_cu, src_gpu, line, req_bytes, resp_bytes, req_class, resp_class};
  access.multicast = op;
  access.members = program_.multicast_members.data() + program_.multicast_offsets[group];
  access.member_count = program_.multicast_offsets[group + 1] - program_.multicast_offsets[group];
  network_.send(tag, access);
}

void GpuModel::issue(uint32_t slot_index, uint16_t wave) {
  Slot& slot = slots_[slot_index];
  Wave& w = slot.waves[wave];
  Cu& cu = cus_[slot.cu];
  const auto phase = static_cast<Phase>(w.phase);
  if (flows_ && (phase == Phase::kLoads || phase == Phase::kStores)) {
    issue_flow(slot_index, wave);
    return;
  }
  const uint32_t gpu = slot.cu / config_.compute_units;
  const uint32_t cu_local = slot.cu % config_.compute_units;
  const uint32_t tag = new_request();
  Request& req = requests_[tag];
  req.slot = slot_index;
  req.wave = wave;
  req.packet = false;
  req.lines = 1;
  // A store's register is free once the line left the CU; only loads (and
  // polls) hold one until their answer returns, unless configured otherwise.
  req.counted = config_.stores_wait_for_ack || !(phase == Phase::kStores || phase == Phase::kRelease);
  ++slot.outstanding;
  if (req.counted) ++cu.outstanding;
  const uint32_t header = config_.control_message_bytes;
  const uint32_t line_bytes = config_.cache_line_bytes;
  if (phase == Phase::kAcquire || phase == Phase::kRelease) {
    const ls::GpuOp& op = program_.ops[w.op];
    if (op.sync >= program_.semaphores.size()) {
      throw Error(fmt::format("{}: semaphore {} does not exist", program_.where(w.op), op.sync));
    }
    const uint32_t owner = program_.semaphores[op.sync].gpu;
    req.gpu = owner;
    req.sync = op.sync;
    const uint64_t line = (kSemaphoreSpace * kSpaceStrideBytes) / line_bytes + op.sync;
    if (phase == Phase::kAcquire) {
      req.kind = ReqKind::kAcquire;
      set_phase(slot, w, Phase::kWaitSem);
      send(tag, gpu, cu_local, owner, line, header, line_bytes, MessageClass::kControl, MessageClass::kControl);
    } else {
      req.kind = ReqKind::kRelease;
      ++slot.stores_out;
      send(tag, gpu, cu_local, owner, line, line_bytes, header, MessageClass::kControl, MessageClass::kControl);
      ++w.op;
      set_phase(slot, w, Phase::kStart);
      begin_op(slot_index, wave);
    }
    return;
  }
  const Loop& loop = loops_[w.op];
  const bool load = phase == Phase::kLoads;
  const uint32_t per_line = load ? loop.loads : loop.stores;
  const uint32_t i = w.cursor++;
  const uint64_t line_in_loop = w.group_first + i / per_line;
  const LoopEntry& entry = loop_entries_[loop.first_entry + (load ? 0 : loop.loads) + i % per_line];
  const ls::MemRange& range = program_.ranges[entry.range];
  const uint64_t begin = line_in_loop * loop.line_payload_bytes;
  const uint64_t payload = std::min(loop.line_payload_bytes, loop.bytes - begin);
  const uint32_t wire = static_cast<uint32_t>(range.wire_bytes(payload));
  const uint64_t address = static_cast<uint64_t>(range.space) * kSpaceStrideBytes + range.offset_bytes + begin;
  req.gpu = entry.gpu;
  req.space = static_cast<uint8_t>(range.space);
  req.packet = range.packet();
  req.begin = range.offset_bytes + begin;
  req.end = req.begin + payload;
  GpuStats& g = stats_.gpus[gpu];
  if (load) {
    req.kind = ReqKind::kLoad;
    ++w.loads_out;
    g.loaded_bytes += payload;
    send(tag, gpu, cu_local, entry.gpu, address / line_bytes, header, wire, MessageClass::kControl,
         MessageClass::kData, Multicast::kReduceLoad, range.gpu);
    if (w.cursor == w.cursor_end) set_phase(slot, w, Phase::kWaitLoads);
  } else {
    req.kind = ReqKind::kStore;
    ++slot.stores_out;
    g.stored_bytes += payload;
    send(tag, gpu, cu_local, entry.gpu, address / line_bytes, wire, header, MessageClass::kData,
         MessageClass::kControl, Multicast::kBroadcastStore, range.gpu);
    if (w.cursor == w.cursor_end) end_loop(slot_index, wave);
  }
}


}  // namespace snr::dsim::gpu
