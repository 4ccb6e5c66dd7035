// Writes a generated plan into a Program: one kernel per GPU, workgroups
// emitted in order (GPU 0's first). Algorithms address whole chunks
// (`Region`) and pick which slice of them the ops that follow move; the
// builder narrows every range to that slice, names ops for messages, and
// keeps one counting semaphore per (owner GPU, workgroup, purpose).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/loadstore/program.h"

namespace snr::dsim::loadstore {

// A chunk-sized piece of one GPU's memory; `offset_bytes` is the chunk's
// start. Packet regions hold LL packets (data and flag in one write);
// packet128 regions LL128 lines (a flag word in every 128-byte line).
// Switch regions (`multicast`) are the same chunk on every GPU at one
// NVSwitch multicast address; `gpu` is then the Program's multicast group.
struct Region {
  uint32_t gpu = 0;
  Space space = Space::kInput;
  uint64_t offset_bytes = 0;
  bool packet = false;
  bool packet128 = false;
  bool multicast = false;
};

class PlanBuilder {
 public:
  // `chunk_bytes`: the unit the algorithm cuts buffers into; every
  // workgroup's slice of it is a whole number of elements.
  PlanBuilder(const GeneratedPlanOptions& options, uint64_t chunk_bytes, std::string kernel_name);

  [[nodiscard]] const GeneratedPlanOptions& options() const { return options_; }
  [[nodiscard]] uint32_t gpus() const { return options_.gpus; }
  [[nodiscard]] uint64_t chunk_bytes() const { return chunk_bytes_; }
  // Scratch the algorithm needs per GPU (payload bytes; LL flags are wire).
  void set_scratch_bytes(uint64_t bytes);

  // Workgroups are emitted in order: GPU by GPU, workgroup by workgroup. A
  // workgroup that emitted no op is left out.
  void begin_workgroup(uint32_t gpu, uint32_t workgroup);
  void end_workgroup();
  [[nodiscard]] uint32_t gpu() const { return gpu_; }
  [[nodiscard]] uint32_t workgroup() const { return workgroup_; }
  // The ops that follow move slice `index` of `count` of every chunk. Slices
  // differ by at most one element and depend on nothing but (index, count),
  // so both ends of a transfer agree on whether a slice is empty.
  void select_slice(uint64_t index, uint64_t count);
  // Narrows the selected slice to its piece `index` of `count` (a pipeline
  // step's sub-transfer), by the same whole-element rule; select_slice
  // again to widen it.
  void select_piece(uint64_t index, uint64_t count);
  // Bytes of the selected slice; ops of an empty slice are not emitted.
  [[nodiscard]] uint64_t slice_bytes() const { return slice_end_ - slice_begin_; }
  // Chunk `index` of `space` on `gpu` (scratch is cut into chunk-sized slots).
  [[nodiscard]] Region chunk(uint32_t gpu, Space space, uint64_t index, bool packet = false) const {
    return Region{gpu, space, index * chunk_bytes_, packet};
  }

  // Scratch slot `index` of `gpu` in the format of the plan's protocol:
  // LL packets, LL128 lines or plain data (Simple).
  [[nodiscard]] Region protocol_slot(uint32_t gpu, uint64_t index) const {
    Region r = chunk(gpu, Space::kScratch, index);
    r.packet = options_.protocol == Protocol::kLL;
    r.packet128 = options_.protocol == Protocol::kLL128;
    return r;
  }

  // Chunk `index` of `space` on every GPU of the plan, through the switch:
  // a load of it is reduced in the switch (multimem.ld_reduce), a store
  // writes every GPU's copy (multimem.st).
  [[nodiscard]] Region switch_chunk(Space space, uint64_t index);
  // One per-line loop: a switch-reduced Load of `from` → Store every `to`.
  void switch_reduce(const Region& from, const std::vector<Region>& to, std::string_view name);

  // MemcpyOp of the slice: Load `from` → Waitcnt → Store `to`.
  void copy(const Region& from, const Region& to, std::string_view name);
  // One per-line loop: Load every `loads` → [Reduce] → Store every `stores`.
  void load_store(const std::vector<Region>& loads, const std::vector<Region>& stores, bool reduce,
                  std::string_view name);
  // SemaphoreReleaseOp on the `purpose` semaphore workgroup
  // `peer_workgroup` of `peer` waits on (fenced unless relaxed: a fenced
  // release first waits until this workgroup's stores are acknowledged).
  void notify(uint32_t peer, uint32_t peer_workgroup, std::string_view purpose, bool relaxed);
  // `times` SemaphoreAcquireOps on this workgroup's own `purpose` semaphore
  // (counting: several peers or steps release it).
  void await(std::string_view purpose, uint32_t times);
  // NopOp: every wavefront of the workgroup meets here (__syncthreads).
  // Semaphore ops run on wavefront 0 only, so a wait followed by hold()
  // keeps the whole workgroup back, and hold() before a fenced notify makes
  // the fence cover every wavefront's stores.
  void hold(std::string_view name);
  // An unchained ReduceOp of `cycles` ALU cycles per wavefront: work the
  // SM does that moves no data.
  void compute(uint32_t cycles, std::string_view name);
  // The kernel's prologue: options().prologue_cycles on the SM, shared by
  // the wavefronts (the SM's ALU runs them one after another), then a hold
  // so all of them start the first transfer together. Nothing when 0.
  void prologue();

  Program finish();

 private:
  MemRange range(const Region& region) const;
  // Throws when the whole program, judged by GPU 0's, would not fit in memory.
  void check_expansion_fits() const;
  uint32_t semaphore(uint32_t owner, uint32_t workgroup, std::string_view purpose);
  void emit(OpKind kind, uint8_t flags, const std::vector<MemRange>& ranges, uint64_t bytes, uint32_t sync,
            std::string_view name, uint32_t reduce_cycles = 0);
  uint32_t name_id(std::string_view name);

  GeneratedPlanOptions options_;
  uint64_t chunk_bytes_ = 0;
  Program program_;
  uint32_t kernel_name_ = 0;
  uint16_t wavefronts_ = 1;
  std::map<std::string, uint32_t, std::less<>> name_ids_;
  std::map<std::tuple<uint32_t, uint32_t, std::string>, uint32_t, std::less<>> semaphores_;
  // The workgroup being emitted.
  uint32_t gpu_ = 0, workgroup_ = 0, op_index_ = 0;
  uint64_t slice_begin_ = 0, slice_end_ = 0;
  uint64_t whole_slice_begin_ = 0, whole_slice_end_ = 0;  // before select_piece
  Workgroup current_;
  bool open_ = false;
  uint32_t all_gpus_group_ = kNone;  // switch_chunk()'s multicast group, made on first use
};

}  // namespace snr::dsim::loadstore
