#include "dsim/loadstore/generated/plan_builder.h"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>

#include "common/error.h"

namespace snr::dsim::loadstore {

PlanBuilder::PlanBuilder(const GeneratedPlanOptions& options, uint64_t chunk_bytes, std::string kernel_name)
    : options_(options), chunk_bytes_(chunk_bytes) {
  program_.gpus.assign(options.gpus, collective_buffers(options.collective, options.gpus, options.buffer_bytes));
  for (GpuBuffers& b : program_.gpus) b.chunk_bytes = chunk_bytes;
  kernel_name_ = program_.add_name(std::move(kernel_name));
  wavefronts_ = wavefronts_per_workgroup(options.threads_per_workgroup, options.wavefront_threads);
}

void PlanBuilder::set_scratch_bytes(uint64_t bytes) {
  for (GpuBuffers& b : program_.gpus) b.scratch_bytes = bytes;
}

void PlanBuilder::begin_workgroup(uint32_t gpu, uint32_t workgroup) {
  if (open_) throw Error("plan builder: a workgroup is still open");
  const bool next_gpu = program_.kernels.empty() || program_.kernels.back().gpu != gpu;
  if (next_gpu && gpu != program_.kernels.size()) {
    throw Error(fmt::format("plan builder: gpu {} emitted out of order", gpu));
  }
  if (next_gpu && gpu == 1) check_expansion_fits();
  if (next_gpu) {
    program_.kernels.push_back(Kernel{gpu, static_cast<uint32_t>(program_.workgroups.size()), 0, kernel_name_});
  }
  open_ = true;
  gpu_ = gpu;
  workgroup_ = workgroup;
  op_index_ = 0;
  slice_begin_ = whole_slice_begin_ = 0;
  slice_end_ = whole_slice_end_ = chunk_bytes_;
  current_ = Workgroup{gpu, static_cast<uint32_t>(program_.ops.size()), 0, wavefronts_, 0};
}

void PlanBuilder::check_expansion_fits() const {
  // GPUs emit alike, so GPU 0's share times the GPU count is the program.
  // A plan too large to run is refused here, in a moment, rather than
  // after minutes of expansion or once the machine starts to swap.
  const double gpus = options_.gpus;
  if (options_.max_line_requests > 0) {
    const double requests = static_cast<double>(line_requests(program_, options_.cache_line_bytes)) * gpus;
    if (requests > static_cast<double>(options_.max_line_requests)) {
      throw Error(fmt::format(
          "{} of {} B per GPU on {} GPUs issues about {:.3g} cache-line requests, more than the {:.3g} one run "
          "simulates: use a smaller --size or fewer GPUs (busbw stops changing long before), or model the "
          "collective at message level (snr sim)",
          options_.collective, options_.buffer_bytes, options_.gpus, requests,
          static_cast<double>(options_.max_line_requests)));
    }
  }
  // A run peaks at about twice the program (ring all-reduce, 512 GPUs:
  // 1.6 GB of program, 3.1 GB peak).
  const double per_gpu_bytes = static_cast<double>(program_.ops.size() * (sizeof(GpuOp) + sizeof(OpOrigin)) +
                                                   program_.ranges.size() * sizeof(MemRange));
  const double program_bytes = per_gpu_bytes * gpus;
  const long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_bytes <= 0) return;  // unknown: no limit
  const double memory_bytes = static_cast<double>(pages) * static_cast<double>(page_bytes);
  if (2 * program_bytes <= 0.8 * memory_bytes) return;
  throw Error(fmt::format(
      "{} on {} GPUs with {} workgroups each expands into about {:.3g} load-store ops ({:.1f} GB as a program, about "
      "twice that to simulate), more than this machine's {:.1f} GB can hold: use fewer GPUs or --workgroups, or "
      "model the collective at message level (snr sim)",
      options_.collective, options_.gpus, options_.workgroups, static_cast<double>(program_.ops.size()) * gpus,
      program_bytes / 1e9, memory_bytes / 1e9));
}

void PlanBuilder::end_workgroup() {
  if (!open_) throw Error("plan builder: no workgroup is open");
  open_ = false;
  current_.op_count = static_cast<uint32_t>(program_.ops.size()) - current_.first_op;
  if (current_.op_count == 0) return;
  program_.workgroups.push_back(current_);
  ++program_.kernels.back().workgroup_count;
}

void PlanBuilder::select_slice(uint64_t index, uint64_t count) {
  const uint64_t elements = chunk_bytes_ / kPlanElementBytes;
  slice_begin_ = whole_slice_begin_ = elements * index / count * kPlanElementBytes;
  slice_end_ = whole_slice_end_ = elements * (index + 1) / count * kPlanElementBytes;
}

void PlanBuilder::select_piece(uint64_t index, uint64_t count) {
  const uint64_t first = whole_slice_begin_ / kPlanElementBytes;
  const uint64_t elements = (whole_slice_end_ - whole_slice_begin_) / kPlanElementBytes;
  slice_begin_ = (first + elements * index / count) * kPlanElementBytes;
  slice_end_ = (first + elements * (index + 1) / count) * kPlanElementBytes;
}

MemRange PlanBuilder::range(const Region& region) const {
  MemRange r;
  r.gpu = region.gpu;
  r.space = region.space;
  r.offset_bytes = region.offset_bytes + slice_begin_;
  if (region.packet) r.flags |= MemRange::kPacket;
  if (region.packet128) r.flags |= MemRange::kPacket128;
  if (region.multicast) r.flags |= MemRange::kMulticast;
  return r;
}

Region PlanBuilder::switch_chunk(Space space, uint64_t index) {
  if (all_gpus_group_ == kNone) {
    std::vector<uint32_t> members(options_.gpus);
    for (uint32_t g = 0; g < options_.gpus; ++g) members[g] = g;
    all_gpus_group_ = program_.add_multicast_group(members);
  }
  Region r = chunk(all_gpus_group_, space, index);
  r.multicast = true;
  return r;
}

void PlanBuilder::switch_reduce(const Region& from, const std::vector<Region>& to, std::string_view name) {
  if (slice_bytes() == 0) return;
  std::vector<MemRange> store_ranges;
  for (const Region& r : to) store_ranges.push_back(range(r));
  emit(OpKind::kLoad, GpuOp::kSwitchReduce, {range(from)}, slice_bytes(), kNone, name);
  emit(OpKind::kStore, GpuOp::kChained, store_ranges, slice_bytes(), kNone, name);
}

uint32_t PlanBuilder::name_id(std::string_view name) {
  auto it = name_ids_.find(name);
  if (it == name_ids_.end()) it = name_ids_.emplace(std::string(name), program_.add_name(std::string(name))).first;
  return it->second;
}

void PlanBuilder::emit(OpKind kind, uint8_t flags, const std::vector<MemRange>& ranges, uint64_t bytes,
                       uint32_t sync, std::string_view name, uint32_t reduce_cycles) {
  if (!open_) throw Error("plan builder: an op outside a workgroup");
  GpuOp op;
  op.kind = kind;
  op.flags = flags;
  op.bytes = bytes;
  op.sync = sync;
  op.reduce_cycles = reduce_cycles;
  program_.add_op(op, ranges, OpOrigin{workgroup_, op_index_++, kNone, 0, name_id(name)});
}

void PlanBuilder::copy(const Region& from, const Region& to, std::string_view name) {
  if (slice_bytes() == 0) return;
  emit(OpKind::kMemcpy, 0, {range(from), range(to)}, slice_bytes(), kNone, name);
}

void PlanBuilder::load_store(const std::vector<Region>& loads, const std::vector<Region>& stores, bool reduce,
                             std::string_view name) {
  if (slice_bytes() == 0) return;
  std::vector<MemRange> load_ranges, store_ranges;
  for (const Region& r : loads) load_ranges.push_back(range(r));
  for (const Region& r : stores) store_ranges.push_back(range(r));
  emit(OpKind::kLoad, 0, load_ranges, slice_bytes(), kNone, name);
  if (reduce) emit(OpKind::kReduce, GpuOp::kChained, {}, slice_bytes(), kNone, name);
  emit(OpKind::kStore, GpuOp::kChained, store_ranges, slice_bytes(), kNone, name);
}

void PlanBuilder::notify(uint32_t peer, uint32_t peer_workgroup, std::string_view purpose, bool relaxed) {
  if (slice_bytes() == 0) return;
  emit(OpKind::kSemaphoreRelease, relaxed ? GpuOp::kRelaxed : 0, {}, 0, semaphore(peer, peer_workgroup, purpose),
       fmt::format("signal {}", purpose));
}

void PlanBuilder::await(std::string_view purpose, uint32_t times) {
  if (slice_bytes() == 0) return;
  const uint32_t sync = semaphore(gpu_, workgroup_, purpose);
  for (uint32_t i = 0; i < times; ++i) emit(OpKind::kSemaphoreAcquire, 0, {}, 0, sync, fmt::format("wait {}", purpose));
}

void PlanBuilder::hold(std::string_view name) {
  if (slice_bytes() == 0) return;
  emit(OpKind::kNop, 0, {}, 0, kNone, name);
}

void PlanBuilder::compute(uint32_t cycles, std::string_view name) {
  if (slice_bytes() == 0 || cycles == 0) return;
  emit(OpKind::kReduce, 0, {}, 0, kNone, name, cycles);
}

void PlanBuilder::prologue() {
  if (options_.prologue_cycles == 0) return;
  compute((options_.prologue_cycles + wavefronts_ - 1) / wavefronts_, "prologue");
  hold("prologue done");
}

uint32_t PlanBuilder::semaphore(uint32_t owner, uint32_t workgroup, std::string_view purpose) {
  auto key = std::make_tuple(owner, workgroup, std::string(purpose));
  auto it = semaphores_.find(key);
  if (it != semaphores_.end()) return it->second;
  const auto index = static_cast<uint32_t>(program_.semaphores.size());
  program_.semaphores.push_back(
      Semaphore{owner, 0, program_.add_name(fmt::format("gpu {} workgroup {} '{}'", owner, workgroup, purpose))});
  semaphores_.emplace(std::move(key), index);
  return index;
}

Program PlanBuilder::finish() {
  if (open_) throw Error("plan builder: a workgroup is still open");
  if (program_.kernels.size() != options_.gpus) {
    throw Error(fmt::format("plan builder: {} of {} GPUs got a kernel", program_.kernels.size(), options_.gpus));
  }
  return std::move(program_);
}

}  // namespace snr::dsim::loadstore
