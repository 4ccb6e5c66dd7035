// Run-time kernel launches: programs added to a running model (snr sim's
// load-store collectives) and the release of their state once finished.
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "dsim/gpu/gpu_model.h"

namespace snr::dsim::gpu {

namespace ls = loadstore;

namespace {

// Buffers of successive programs start on this boundary, so that the
// interleaving over memory channels of a program's first line is the same
// as in a run of that program alone.
constexpr uint64_t kBufferAlignmentBytes = uint64_t{1} << 20;
// Addresses stay below the next space's (gpu_model.cc spaces are 2^40
// apart) and within the LL flags' keys (packet_flags.h).
constexpr uint64_t kAddressLimitBytes = uint64_t{1} << 39;

}  // namespace

GpuModel::GpuModel(uint32_t gpus, const GpuConfig& config, EventLoop& loop, MemoryNetwork& network)
    : GpuModel(std::make_unique<ls::Program>(), nullptr, config, loop, network) {
  // The delegated constructor saw an empty program: size the per-GPU and
  // per-CU state for `gpus` now. Every slot exists up front (see there).
  owned_->gpus.resize(gpus);
  cus_.resize(size_t{gpus} * config.compute_units);
  slots_.resize(cus_.size() * config.workgroups_per_cu);
  free_slots_.clear();
  for (uint32_t s = static_cast<uint32_t>(slots_.size()); s-- > 0;) free_slots_.push_back(s);
  gpus_.resize(gpus);
  stats_.gpus.resize(gpus);
  packet_flags_ = PacketFlags(gpus * 3);
}

void GpuModel::drop_finished_programs() {
  ls::Program& p = *owned_;
  p.kernels.clear();
  p.workgroups.clear();
  p.ops.clear();
  p.origins.clear();
  p.ranges.clear();
  p.semaphores.clear();
  p.barriers.clear();
  p.multicast_offsets.assign(1, 0);
  p.multicast_members.clear();
  p.names.clear();
  loops_.clear();
  loop_built_.clear();
  loop_entries_.clear();
  semaphore_values_.clear();
  semaphore_waiters_.clear();
  barrier_arrived_.clear();
  barrier_waiting_.clear();
  for (GpuState& g : gpus_) {
    g.pending.clear();
    g.next_pending = 0;
  }
  stats_.workgroup_start_ps.clear();
  stats_.workgroup_end_ps.clear();
  stats_.workgroup_cu.clear();
  workgroup_kernel_.clear();
  workgroup_tuning_.clear();
  kernel_runs_.clear();
  packet_flags_ = PacketFlags(p.gpu_count() * 3);
  address_base_bytes_ = 0;
}

uint32_t GpuModel::add_program(const ls::Program& fragment, const std::vector<uint32_t>& gpu_of, KernelTuning tuning) {
  if (!owned_) throw Error("gpu model: add_program needs a model built for run-time launches");
  if (gpu_of.size() != fragment.gpu_count()) {
    throw Error(fmt::format("gpu model: a program of {} GPUs placed on {}", fragment.gpu_count(), gpu_of.size()));
  }
  for (uint32_t g : gpu_of) {
    if (g >= gpus_.size()) throw Error(fmt::format("gpu model: GPU {} of {}", g, gpus_.size()));
  }
  // Nothing refers to finished programs any more (a retired workgroup has
  // no request in flight): start the arrays over.
  if (kernels_open_ == 0 && !kernel_runs_.empty()) drop_finished_programs();
  ls::Program& p = *owned_;
  uint64_t buffer_bytes = 0;
  for (const ls::GpuBuffers& b : fragment.gpus) {
    buffer_bytes = std::max({buffer_bytes, b.input_bytes, b.output_bytes, b.scratch_bytes});
  }
  buffer_bytes = (buffer_bytes + kBufferAlignmentBytes - 1) / kBufferAlignmentBytes * kBufferAlignmentBytes;
  if (address_base_bytes_ + buffer_bytes > kAddressLimitBytes) address_base_bytes_ = 0;  // docs/gpu-model.md
  const uint64_t base = address_base_bytes_;
  address_base_bytes_ += buffer_bytes;

  const auto op0 = static_cast<uint32_t>(p.ops.size());
  const auto range0 = static_cast<uint32_t>(p.ranges.size());
  const auto wg0 = static_cast<uint32_t>(p.workgroups.size());
  const auto kernel0 = static_cast<uint32_t>(p.kernels.size());
  const auto sem0 = static_cast<uint32_t>(p.semaphores.size());
  const auto barrier0 = static_cast<uint32_t>(p.barriers.size());
  const auto name0 = static_cast<uint32_t>(p.names.size());
  p.names.insert(p.names.end(), fragment.names.begin(), fragment.names.end());
  // A group the model already has (another program in flight on the same
  // GPUs) is reused, so fragment groups map by what add_multicast_group returns.
  std::vector<uint32_t> group_of;
  for (uint32_t g = 0; g + 1 < fragment.multicast_offsets.size(); ++g) {
    std::vector<uint32_t> members = fragment.multicast_group(g);
    for (uint32_t& m : members) m = gpu_of.at(m);
    group_of.push_back(p.add_multicast_group(members));
  }
  for (ls::MemRange r : fragment.ranges) {
    r.gpu = r.multicast() ? group_of.at(r.gpu) : gpu_of.at(r.gpu);
    r.offset_bytes += base;
    p.ranges.push_back(r);
  }
  for (ls::GpuOp op : fragment.ops) {
    op.first_range += range0;
    if (op.sync != ls::kNone) {
      if (op.kind == ls::OpKind::kBarrier) op.sync += barrier0;
      if (op.kind == ls::OpKind::kSemaphoreAcquire || op.kind == ls::OpKind::kSemaphoreRelease) op.sync += sem0;
    }
    p.ops.push_back(op);
  }
  for (ls::OpOrigin origin : fragment.origins) {
    origin.name += name0;
    p.origins.push_back(origin);
  }
  for (ls::Workgroup wg : fragment.workgroups) {
    if (wg.wavefronts == 0) throw Error(fmt::format("{}: workgroup without wavefronts", fragment.where(wg.first_op)));
    wg.gpu = gpu_of.at(wg.gpu);
    wg.first_op += op0;
    p.workgroups.push_back(wg);
  }
  workgroup_kernel_.resize(p.workgroups.size(), ls::kNone);
  workgroup_tuning_.resize(p.workgroups.size(), tuning);
  for (ls::Kernel k : fragment.kernels) {
    k.gpu = gpu_of.at(k.gpu);
    k.first_workgroup += wg0;
    k.name += name0;
    const auto index = static_cast<uint32_t>(p.kernels.size());
    for (uint32_t i = 0; i < k.workgroup_count; ++i) workgroup_kernel_.at(k.first_workgroup + i) = index;
    p.kernels.push_back(k);
    kernel_runs_.push_back(KernelRun{k.workgroup_count, false, {}});
    ++kernels_open_;
  }
  for (ls::Semaphore sem : fragment.semaphores) {
    sem.gpu = gpu_of.at(sem.gpu);
    sem.name += name0;
    p.semaphores.push_back(sem);
    semaphore_values_.push_back(sem.initial_value);
  }
  for (ls::Barrier barrier : fragment.barriers) {
    barrier.gpu = gpu_of.at(barrier.gpu);
    barrier.name += name0;
    p.barriers.push_back(barrier);
  }
  semaphore_waiters_.resize(p.semaphores.size());
  barrier_arrived_.resize(p.barriers.size(), 0);
  barrier_waiting_.resize(p.barriers.size());
  loops_.resize(p.ops.size());
  loop_built_.resize(p.ops.size(), 0);
  stats_.workgroup_start_ps.resize(p.workgroups.size(), 0);
  stats_.workgroup_end_ps.resize(p.workgroups.size(), 0);
  stats_.workgroup_cu.resize(p.workgroups.size(), ls::kNone);
  return kernel0;
}

void GpuModel::launch(uint32_t kernel, KernelDone done) {
  if (kernel >= kernel_runs_.size() || kernel_runs_[kernel].launched) {
    throw Error(fmt::format("gpu model: kernel {} was not added or is already launched", kernel));
  }
  KernelRun& run = kernel_runs_[kernel];
  run.launched = true;
  if (run.workgroups_left == 0) {
    --kernels_open_;
    if (done) done(kernel);
    return;
  }
  run.done = std::move(done);
  const ls::Kernel& k = program_.kernels[kernel];
  GpuState& g = gpus_[k.gpu];
  for (uint32_t i = 0; i < k.workgroup_count; ++i) g.pending.push_back(k.first_workgroup + i);
  g.unfinished += k.workgroup_count;
  place(k.gpu);
}

void GpuModel::kernel_retired(uint32_t workgroup) {
  const uint32_t kernel = workgroup_kernel_[workgroup];
  KernelRun& run = kernel_runs_[kernel];
  if (--run.workgroups_left != 0) return;
  --kernels_open_;
  const KernelDone done = std::move(run.done);
  if (done) done(kernel);
}

}  // namespace snr::dsim::gpu
