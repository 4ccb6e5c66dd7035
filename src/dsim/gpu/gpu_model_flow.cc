// The GPU model's flow-level issue (docs/gpu-model.md, "Flow-level mode"):
// instead of one cache-line request per cycle, a wavefront issues the
// lines of its current group that go to one range as one Access of k
// lines, which costs what the k requests would have: k issue cycles of the
// CU (the next tick waits that long) and, for loads, k of the CU's
// outstanding-request slots. The group's lines are taken range by range
// (all lines of the first load range, then of the next), not line by line:
// the wavefront waits for all of a group's loads before it goes on either
// way.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"

namespace snr::dsim::gpu {

namespace ls = loadstore;

void GpuModel::use_flows() {
  flows_ = true;
  // A message's bytes fit 16 bits; a line's wire bytes are at most twice
  // its payload (LL) and a header at most a control message.
  const uint32_t per_line = std::max(2 * config_.cache_line_bytes, config_.control_message_bytes);
  max_flow_lines_ = std::max<uint32_t>(1, std::min<uint32_t>(kMaxFlowLines, UINT16_MAX / per_line));
  network_.carry_flows(cycle_ps_);
}

void GpuModel::issue_flow(uint32_t slot_index, uint16_t wave) {
  Slot& slot = slots_[slot_index];
  Wave& w = slot.waves[wave];
  Cu& cu = cus_[slot.cu];
  const uint32_t gpu = slot.cu / config_.compute_units;
  const uint32_t cu_local = slot.cu % config_.compute_units;
  const Loop& loop = loops_[w.op];
  const bool load = static_cast<Phase>(w.phase) == Phase::kLoads;
  // As issue(): a store holds no slot unless configured to.
  const bool counted = config_.stores_wait_for_ack || load;
  const uint32_t run = w.cursor / w.group_lines;       // which range of the group
  const uint32_t first = w.cursor % w.group_lines;     // first line of the run in the group
  uint32_t lines = std::min(w.group_lines - first, max_flow_lines_);
  // The tick issues a counted request only when a slot is free, so at
  // least one line goes.
  if (counted) lines = std::min(lines, config_.max_outstanding_per_cu - cu.outstanding);
  const LoopEntry& entry = loop_entries_[loop.first_entry + (load ? 0 : loop.loads) + run];
  const ls::MemRange& range = program_.ranges[entry.range];
  // A network that takes flows takes no multicast (MemoryNetwork::
  // carries_multicast()), so switch ranges were expanded per member.
  if (entry.gpu == kSwitchTarget) {
    throw Error(fmt::format("{}: a switch multicast range at flow level", program_.where(w.op)));
  }
  const uint64_t begin = (w.group_first + first) * loop.line_payload_bytes;
  uint64_t end = begin;
  uint64_t wire = 0;
  for (uint32_t j = 0; j < lines; ++j) {
    const uint64_t payload = std::min(loop.line_payload_bytes, loop.bytes - end);
    wire += range.wire_bytes(payload);
    end += payload;
  }
  const uint32_t tag = new_request();
  Request& req = requests_[tag];
  req.slot = slot_index;
  req.wave = wave;
  req.kind = load ? ReqKind::kLoad : ReqKind::kStore;
  req.gpu = entry.gpu;
  req.space = static_cast<uint8_t>(range.space);
  req.packet = range.packet();
  req.counted = counted;
  req.lines = static_cast<uint16_t>(lines);
  req.begin = range.offset_bytes + begin;
  req.end = range.offset_bytes + end;
  slot.outstanding += lines;
  if (counted) cu.outstanding += lines;
  cu.issue_cycles = lines;
  w.cursor += lines;

  const uint32_t line_bytes = config_.cache_line_bytes;
  const uint64_t address = static_cast<uint64_t>(range.space) * kSpaceStrideBytes + range.offset_bytes + begin;
  const auto header = static_cast<uint32_t>(uint64_t{lines} * config_.control_message_bytes);
  Access access{gpu, cu_local, entry.gpu, address / line_bytes, 0, 0, MessageClass::kControl, MessageClass::kData,
                lines};
  if (load) {
    access.request_bytes = header;
    access.response_bytes = static_cast<uint32_t>(wire);
  } else {
    access.request_bytes = static_cast<uint32_t>(wire);
    access.response_bytes = header;
    access.request_class = MessageClass::kData;
    access.response_class = MessageClass::kControl;
  }
  GpuStats& g = stats_.gpus[gpu];
  g.requests += lines;
  stats_.requests += lines;
  (access.request_class == MessageClass::kControl ? g.control_bytes : g.data_bytes) += access.request_bytes;
  (access.response_class == MessageClass::kControl ? g.control_bytes : g.data_bytes) += access.response_bytes;
  (entry.gpu == gpu ? g.local_bytes : g.remote_bytes) += uint64_t{access.request_bytes} + access.response_bytes;
  if (load) {
    w.loads_out += lines;
    g.loaded_bytes += end - begin;
    network_.send(tag, access);
    if (w.cursor == w.cursor_end) set_phase(slot, w, Phase::kWaitLoads);
  } else {
    slot.stores_out += lines;
    g.stored_bytes += end - begin;
    network_.send(tag, access);
    if (w.cursor == w.cursor_end) end_loop(slot_index, wave);
  }
}

}  // namespace snr::dsim::gpu
