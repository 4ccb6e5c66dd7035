#include "dsim/loadstore/lower_msccllang.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "common/error.h"

namespace snr::dsim::loadstore {
namespace {

namespace x = snr::msccllang;

constexpr uint64_t kAlignmentBytes = 16;

// A GPU's input chunks: an in-place all-gather that names none has as its
// input its slice of the output, one GPU's share of the output chunks.
uint32_t input_chunks_of(const x::Algorithm& a, const x::Gpu& g) {
  const auto gpu_count = static_cast<uint32_t>(a.gpus.size());
  if (g.input_chunks == 0 && g.output_chunks % gpu_count == 0 && msccllang_collective(a) == "allgather" &&
      msccllang_buffers_alias(a)) {
    return g.output_chunks / gpu_count;
  }
  return g.input_chunks;
}

// One direction of a (sender, receiver, channel) connection.
struct Link {
  uint32_t from = 0, to = 0;
  uint64_t slot_bytes = 0;
  uint32_t slots = 0;
  uint64_t staging_offset = 0;  // in the receiver's scratch
  uint32_t credits = kNone;     // on the sender: free slots
  uint32_t full = kNone;        // on the receiver: filled slots (Simple protocol only)
  uint32_t sent = 0, received = 0;
};

class Lowerer {
 public:
  Lowerer(const x::Algorithm& a, const MsccllangLowering& o) : a_(a), o_(o) {}
  Program run();

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: {}", where_, what)); }
  void emit(OpKind kind, uint8_t flags, const std::vector<MemRange>& ranges, uint64_t bytes, uint32_t sync = kNone) {
    GpuOp op;
    op.kind = kind;
    op.flags = flags;
    op.bytes = bytes;
    op.sync = sync;
    p_.add_op(op, ranges, origin_);
  }
  uint32_t semaphore(uint32_t gpu, uint32_t initial, std::string name) {
    p_.semaphores.push_back(Semaphore{gpu, initial, p_.add_name(std::move(name))});
    return static_cast<uint32_t>(p_.semaphores.size() - 1);
  }
  MemRange local(uint32_t gpu, x::Buffer buffer, uint32_t chunk_offset) const {
    MemRange r;
    r.gpu = gpu;
    r.space = buffer == x::Buffer::kInput ? Space::kInput : buffer == x::Buffer::kOutput ? Space::kOutput : Space::kScratch;
    // In place without output chunks, the output is the input.
    if (buffer == x::Buffer::kOutput && a_.gpus[gpu].output_chunks == 0 && a_.inplace) r.space = Space::kInput;
    r.offset_bytes = uint64_t{chunk_offset} * chunk_[gpu];
    return r;
  }
  MemRange staging(const Link& link, uint32_t message) const {
    MemRange r;
    r.gpu = link.to;
    r.space = Space::kScratch;
    // Simple reuses slots in turn; LL/LL128 flags identify the message, which
    // behaves as if every message had its own slot.
    const uint32_t slot = packet_flag_ ? message : message % link.slots;
    r.offset_bytes = link.staging_offset + uint64_t{slot} * link.slot_bytes;
    r.flags = packet_flag_;
    return r;
  }

  const x::Algorithm& a_;
  const MsccllangLowering& o_;
  Program p_;
  std::vector<uint64_t> chunk_;
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Link> links_;
  uint8_t packet_flag_ = 0;
  std::string where_;
  OpOrigin origin_;
};

Program Lowerer::run() {
  if (o_.staging_slots == 0 || o_.wavefront_threads == 0 || o_.threads_per_workgroup == 0) {
    throw Error("staging slots, wavefront threads and threads per workgroup must be positive");
  }
  p_.origin_unit = "step";
  packet_flag_ = a_.protocol == "LL" ? MemRange::kPacket : a_.protocol == "LL128" ? MemRange::kPacket128 : 0;
  const std::string collective = msccllang_collective(a_);
  const bool alias = msccllang_buffers_alias(a_);
  const auto gpu_count = static_cast<uint32_t>(a_.gpus.size());
  for (const x::Gpu& g : a_.gpus) {
    const uint32_t input_chunks = input_chunks_of(a_, g);
    const uint32_t chunks = input_chunks != 0 ? input_chunks : g.output_chunks;
    if (chunks == 0) throw Error(fmt::format("gpu {}: no input or output chunks to size the buffers from", g.id));
    if (o_.input_bytes == 0 || o_.input_bytes % (uint64_t{chunks} * kAlignmentBytes) != 0) {
      throw Error(fmt::format("gpu {}: a {}-byte buffer does not split into {} chunks of whole {}-byte units", g.id,
                              o_.input_bytes, chunks, kAlignmentBytes));
    }
    chunk_.push_back(o_.input_bytes / chunks);
    GpuBuffers b;
    b.chunk_bytes = chunk_.back();
    b.input_bytes = uint64_t{input_chunks} * b.chunk_bytes;
    b.output_bytes = uint64_t{g.output_chunks} * b.chunk_bytes;
    if (g.output_chunks == 0 && a_.inplace) {
      // Without output chunks in place, the output lives in the input: all of
      // it, or for a reduce-scatter the GPU's slice.
      b.output_bytes = collective == "reducescatter" && alias && b.input_bytes % gpu_count == 0
                           ? b.input_bytes / gpu_count
                           : b.input_bytes;
    }
    b.scratch_bytes = uint64_t{g.scratch_chunks} * b.chunk_bytes;
    p_.gpus.push_back(b);
  }
  // Connections: slot size, depth and place in the receiver's scratch.
  for (const x::Gpu& g : a_.gpus) {
    for (const x::Threadblock& t : g.threadblocks) {
      if (t.send_peer < 0) continue;
      const auto to = static_cast<uint32_t>(t.send_peer);
      if (chunk_[to] != chunk_[g.id]) {
        throw Error(fmt::format("gpus {} and {} cut chunks of different sizes ({} and {} B)", g.id, to, chunk_[g.id],
                                chunk_[to]));
      }
      Link& link = links_[{g.id, to, t.channel}];
      link.from = g.id;
      link.to = to;
      uint32_t messages = 0;
      for (const x::Step& s : t.steps) {
        if (s.type == x::StepType::kSend || s.type == x::StepType::kRecvCopySend ||
            s.type == x::StepType::kRecvReduceSend || s.type == x::StepType::kRecvReduceCopySend) {
          ++messages;
          link.slot_bytes = std::max(link.slot_bytes, uint64_t{s.count} * chunk_[g.id]);
        }
      }
      link.slots = packet_flag_ ? messages : std::min(messages, o_.staging_slots);
      link.staging_offset = p_.gpus[to].scratch_bytes;
      p_.gpus[to].scratch_bytes += uint64_t{link.slots} * link.slot_bytes;
      link.credits = semaphore(g.id, std::min(messages, o_.staging_slots),
                               fmt::format("gpu {} credits to gpu {} channel {}", g.id, to, t.channel));
      if (!packet_flag_) {
        link.full = semaphore(to, 0, fmt::format("gpu {} slots filled by gpu {} channel {}", to, g.id, t.channel));
      }
    }
  }
  // Cross-threadblock dependencies: one semaphore per (producer step, consumer step).
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<uint32_t>> releases;  // gpu, tb, step
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> acquires;
  for (const x::Gpu& g : a_.gpus) {
    for (const x::Threadblock& t : g.threadblocks) {
      for (const x::Step& s : t.steps) {
        if (s.dep_threadblock < 0) continue;
        const uint32_t sem = semaphore(g.id, 0, fmt::format("gpu {} threadblock {} step {} done (for threadblock {} step {})",
                                                            g.id, s.dep_threadblock, s.dep_step, t.id, s.index));
        releases[{g.id, static_cast<uint32_t>(s.dep_threadblock), static_cast<uint32_t>(s.dep_step)}].push_back(sem);
        acquires[{g.id, t.id, s.index}] = sem;
      }
    }
  }
  const uint32_t kernel_name = p_.add_name(a_.name);
  std::map<x::StepType, uint32_t> step_names;
  for (const x::Gpu& g : a_.gpus) {
    p_.kernels.push_back(Kernel{g.id, static_cast<uint32_t>(p_.workgroups.size()),
                                static_cast<uint32_t>(g.threadblocks.size()), kernel_name});
    for (const x::Threadblock& t : g.threadblocks) {
      Workgroup wg;
      wg.gpu = g.id;
      wg.first_op = static_cast<uint32_t>(p_.ops.size());
      wg.wavefronts = wavefronts_per_workgroup(o_.threads_per_workgroup, o_.wavefront_threads);
      for (const x::Step& s : t.steps) {
        auto [name, inserted] = step_names.try_emplace(s.type, 0);
        if (inserted) name->second = p_.add_name(std::string(x::to_string(s.type)));
        origin_ = OpOrigin{t.id, s.index, kNone, 0, name->second};
        where_ = fmt::format("gpu {} threadblock {} step {} ('{}')", g.id, t.id, s.index, x::to_string(s.type));
        if (auto dep = acquires.find({g.id, t.id, s.index}); dep != acquires.end()) {
          emit(OpKind::kSemaphoreAcquire, 0, {}, 0, dep->second);
        }
        const uint64_t bytes = uint64_t{s.count} * chunk_[g.id];
        const bool sends = s.type == x::StepType::kSend || s.type == x::StepType::kRecvCopySend ||
                           s.type == x::StepType::kRecvReduceSend || s.type == x::StepType::kRecvReduceCopySend;
        const bool receives = s.type == x::StepType::kRecv || s.type == x::StepType::kRecvCopySend ||
                              s.type == x::StepType::kRecvReduceSend || s.type == x::StepType::kRecvReduceCopy ||
                              s.type == x::StepType::kRecvReduceCopySend;
        Link* in = receives ? &links_.at({static_cast<uint32_t>(t.recv_peer), g.id, t.channel}) : nullptr;
        Link* out = sends ? &links_.at({g.id, static_cast<uint32_t>(t.send_peer), t.channel}) : nullptr;
        MemRange in_slot, out_slot;
        if (in) {
          in_slot = staging(*in, in->received++);
          if (in->full != kNone) emit(OpKind::kSemaphoreAcquire, 0, {}, 0, in->full);
        }
        if (out) {
          out_slot = staging(*out, out->sent++);
          emit(OpKind::kSemaphoreAcquire, 0, {}, 0, out->credits);
        }
        const MemRange src = local(g.id, s.src, s.src_offset);
        const MemRange dst = local(g.id, s.dst, s.dst_offset);
        auto chain = [&](const std::vector<MemRange>& loads, const std::vector<MemRange>& stores, bool reduce) {
          emit(OpKind::kLoad, 0, loads, bytes);
          if (reduce) emit(OpKind::kReduce, GpuOp::kChained, {}, bytes);
          emit(OpKind::kStore, GpuOp::kChained, stores, bytes);
        };
        switch (s.type) {
          case x::StepType::kSend: emit(OpKind::kMemcpy, 0, {src, out_slot}, bytes); break;
          case x::StepType::kRecv: emit(OpKind::kMemcpy, 0, {in_slot, dst}, bytes); break;
          case x::StepType::kRecvCopySend: chain({in_slot}, {dst, out_slot}, false); break;
          case x::StepType::kRecvReduceSend: chain({in_slot, src}, {out_slot}, true); break;
          case x::StepType::kRecvReduceCopy: chain({in_slot, src}, {dst}, true); break;
          case x::StepType::kRecvReduceCopySend: chain({in_slot, src}, {dst, out_slot}, true); break;
          case x::StepType::kCopy: emit(OpKind::kMemcpy, 0, {src, dst}, bytes); break;
          case x::StepType::kReduce: chain({src, dst}, {dst}, true); break;
          case x::StepType::kNop: emit(OpKind::kNop, 0, {}, 0); break;
        }
        if (in) emit(OpKind::kSemaphoreRelease, 0, {}, 0, in->credits);   // the slot is free again
        if (out && out->full != kNone) emit(OpKind::kSemaphoreRelease, 0, {}, 0, out->full);
        if (auto rel = releases.find({g.id, t.id, s.index}); rel != releases.end()) {
          for (uint32_t sem : rel->second) emit(OpKind::kSemaphoreRelease, 0, {}, 0, sem);
        }
      }
      wg.op_count = static_cast<uint32_t>(p_.ops.size()) - wg.first_op;
      p_.workgroups.push_back(wg);
    }
  }
  return std::move(p_);
}

}  // namespace

Program lower_msccllang(const msccllang::Algorithm& algorithm, const MsccllangLowering& options) {
  return Lowerer(algorithm, options).run();
}

uint64_t smallest_exact_input_bytes(const msccllang::Algorithm& algorithm) {
  uint64_t bytes = 1;
  for (const msccllang::Gpu& g : algorithm.gpus) {
    const uint32_t input_chunks = input_chunks_of(algorithm, g);
    const uint64_t chunks = std::max<uint32_t>(1, input_chunks != 0 ? input_chunks : g.output_chunks);
    bytes = std::lcm(bytes, chunks * kAlignmentBytes);
  }
  return bytes;
}

std::string msccllang_collective(const msccllang::Algorithm& algorithm) {
  return algorithm.collective == "reduce_scatter" ? "reducescatter" : algorithm.collective;
}

bool msccllang_buffers_alias(const msccllang::Algorithm& algorithm) {
  const std::string c = msccllang_collective(algorithm);
  return algorithm.inplace && (c == "allreduce" || c == "alltoall" || c == "allgather" || c == "reducescatter");
}

}  // namespace snr::dsim::loadstore
