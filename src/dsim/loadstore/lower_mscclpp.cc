// MSCCL++ op → GPU operations. Offsets follow MSCCL++'s executor: a chunk
// index is converted to bytes with the executing GPU's chunk size (also for
// a remote operand), a threadblock group splits an op's bytes into
// buffer_alignment units (earlier slices take the remainder), and a pipeline
// runs its body ceil(num_chunks * chunk / unit_size) times on consecutive
// unit_size slices.
#include "dsim/loadstore/lower_mscclpp.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "common/error.h"

namespace snr::dsim::loadstore {
namespace {

namespace m = snr::mscclpp;

Space space_of(m::BufferType type) {
  switch (type) {
    case m::BufferType::kInput: return Space::kInput;
    case m::BufferType::kOutput: return Space::kOutput;
    case m::BufferType::kScratch: return Space::kScratch;
  }
  return Space::kInput;
}

// MSCCL++'s fixed scratch buffer for plans with reuse_resources: every
// message size shares it, cut into scratch_chunks equal chunks.
constexpr uint64_t kReusedScratchBytes = uint64_t{1} << 26;

struct Geometry {
  uint64_t rank_bytes = 0;  // the size chunks are cut from (input, or output without input chunks)
  uint32_t chunks = 0;
  uint64_t alignment = 16;
  // reuse_resources with scratch chunks: the fixed scratch buffer's chunk
  // (0 otherwise); a scratch operand's offset inside a pipeline wraps at it.
  uint64_t scratch_chunk_bytes = 0;

  uint64_t offset(uint64_t index) const {  // MSCCL++ calcOffset over the rank's buffer
    const uint64_t units = rank_bytes / alignment;
    return (index * (units / chunks) + std::min<uint64_t>(index, units % chunks)) * alignment;
  }
  // A chunk's size rounded up (MSCCL++ getUpperBoundChunkSize); 0 without chunks.
  uint64_t chunk_upper_bytes() const {
    return chunks == 0 ? 0 : (rank_bytes / alignment + chunks - 1) / chunks * alignment;
  }
  bool reuses_scratch() const { return scratch_chunk_bytes != 0; }
  // Where a scratch chunk starts: the fixed buffer's chunks when the
  // message's chunks do not fit in them, else as any other buffer.
  uint64_t scratch_offset(uint64_t index) const {
    if (reuses_scratch() && scratch_chunk_bytes < chunk_upper_bytes()) return index * scratch_chunk_bytes;
    return offset(index);
  }
};

uint64_t slice_offset(uint64_t bytes, uint64_t index, uint64_t slices, uint64_t alignment) {
  const uint64_t units = bytes / alignment;
  return (index * (units / slices) + std::min<uint64_t>(index, units % slices)) * alignment;
}

class Lowerer {
 public:
  Lowerer(const m::Plan& plan, const MscclppLowering& options) : plan_(plan), options_(options) {}
  Program run();

 private:
  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{}: {}", where_, what)); }
  void add_gpu(const Geometry& geo, const GpuBuffers& buffers, const m::Gpu& gpu);
  void lower_op(const m::Op& op, const m::Gpu& gpu, uint64_t pipeline_offset, uint64_t unit_bytes, bool in_pipeline);
  MemRange range(const m::BufferRef& ref, uint64_t offset, bool packet);
  uint32_t channel_semaphore(const m::Gpu& gpu, m::ChannelType type, uint32_t channel, bool signal);
  uint32_t barrier(const m::Gpu& gpu, uint32_t id, uint32_t participants);
  void emit(OpKind kind, uint8_t flags, const std::vector<MemRange>& ranges, uint64_t bytes, uint32_t sync = kNone);
  void load_reduce_store(const std::vector<MemRange>& loads, const std::vector<MemRange>& stores, uint64_t bytes,
                         bool reduce, uint8_t load_flags = 0);

  const m::Plan& plan_;
  const MscclppLowering& options_;
  Program program_;
  std::vector<Geometry> geometry_;
  std::map<std::tuple<uint32_t, m::ChannelType, uint32_t>, uint32_t> channel_semaphores_;
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> barriers_;
  std::vector<uint32_t> gpu_semaphore_base_;
  std::string where_;
  OpOrigin origin_;
  uint32_t gpu_ = 0;  // the GPU whose op is being lowered
};

Program Lowerer::run() {
  if (plan_.variant == m::Plan::Variant::kConcrete) {
    throw Error(fmt::format("plan '{}' is a 'concrete' variant (buffer refs with an offset, from an experimental "
                            "MSCCL++ branch): its buffer_id is 1-based and its offsets and sizes are not chunk "
                            "counts (their unit is not documented), so it is read but not lowered",
                            plan_.name));
  }
  if (options_.wavefront_threads == 0) throw Error("wavefront_threads must be positive");
  const uint64_t alignment = plan_.buffer_alignment_bytes;
  const uint64_t size = options_.input_bytes;
  for (const m::Gpu& gpu : plan_.gpus) {
    Geometry geo;
    geo.alignment = alignment;
    geo.rank_bytes = size;
    geo.chunks = gpu.input_chunks != 0 ? gpu.input_chunks : gpu.output_chunks;
    if (geo.chunks == 0) {
      // Only synchronization (the reader refused any buffer operand): no
      // buffers, whatever the message size.
      geo.rank_bytes = 0;
      add_gpu(geo, GpuBuffers{}, gpu);
      continue;
    }
    if (size == 0 || size % alignment != 0 || (size / alignment) % geo.chunks != 0) {
      throw Error(fmt::format("gpu {}: a {}-byte {} buffer does not split into {} chunks of whole {}-byte units", gpu.id,
                              size, gpu.input_chunks != 0 ? "input" : "output", geo.chunks, alignment));
    }
    const uint64_t chunk = size / geo.chunks;
    GpuBuffers buffers;
    buffers.chunk_bytes = chunk;
    buffers.input_bytes = uint64_t{gpu.input_chunks} * chunk;
    buffers.output_bytes = uint64_t{gpu.output_chunks} * chunk;
    buffers.scratch_bytes = uint64_t{gpu.scratch_chunks} * chunk;
    if (plan_.reuse_resources && gpu.scratch_chunks > 0) {
      // MSCCL++ (calMaxScratchChunkSize): the fixed buffer, halved when the
      // plan double-buffers, in equal chunks rounded up to the alignment.
      const uint64_t usable = plan_.double_scratch_buffer ? kReusedScratchBytes / 2 : kReusedScratchBytes;
      const uint64_t per_chunk = (usable + gpu.scratch_chunks - 1) / gpu.scratch_chunks;
      geo.scratch_chunk_bytes = (per_chunk + alignment - 1) / alignment * alignment;
      if (geo.scratch_chunk_bytes < geo.chunk_upper_bytes()) {
        buffers.scratch_bytes = uint64_t{gpu.scratch_chunks} * geo.scratch_chunk_bytes;
      }
    }
    const uint64_t message = plan_.collective == "allgather" ? buffers.output_bytes : size;
    if (message < plan_.min_message_size_bytes || message > plan_.max_message_size_bytes) {
      throw Error(fmt::format("gpu {}: message size {} B is outside the plan's range [{}, {}] B", gpu.id, message,
                              plan_.min_message_size_bytes, plan_.max_message_size_bytes));
    }
    add_gpu(geo, buffers, gpu);
  }
  const uint32_t kernel_name = program_.add_name(plan_.name.empty() ? plan_.collective : plan_.name);
  std::map<m::OpType, uint32_t> op_names;
  for (const m::Gpu& gpu : plan_.gpus) {
    Kernel kernel{gpu.id, static_cast<uint32_t>(program_.workgroups.size()),
                  static_cast<uint32_t>(gpu.threadblocks.size()), kernel_name};
    for (const m::Threadblock& tb : gpu.threadblocks) {
      Workgroup wg;
      wg.gpu = gpu.id;
      wg.first_op = static_cast<uint32_t>(program_.ops.size());
      wg.wavefronts = wavefronts_per_workgroup(plan_.threads_per_block, options_.wavefront_threads);
      for (size_t i = 0; i < tb.ops.size(); ++i) {
        const m::Op& op = tb.ops[i];
        auto name_of = [&](m::OpType type) {
          auto [it, inserted] = op_names.try_emplace(type, 0);
          if (inserted) it->second = program_.add_name(std::string(m::op_info(type).name));
          return it->second;
        };
        origin_ = OpOrigin{tb.id, static_cast<uint32_t>(i), kNone, 0, name_of(op.type)};
        where_ = fmt::format("gpu {} threadblock {} op {} ('{}')", gpu.id, tb.id, i, m::op_info(op.type).name);
        if (op.type != m::OpType::kPipeline) {
          lower_op(op, gpu, 0, 0, false);
          continue;
        }
        const Geometry& geo = geometry_[gpu.id];
        const uint64_t iterations =
            (op.pipeline_chunks * geo.chunk_upper_bytes() + op.unit_size_bytes - 1) / op.unit_size_bytes;
        if (iterations > (1u << 20)) fail(fmt::format("{} pipeline iterations is more than modelled", iterations));
        for (uint64_t it = 0; it < iterations; ++it) {
          for (size_t j = 0; j < op.body.size(); ++j) {
            origin_ = OpOrigin{tb.id, static_cast<uint32_t>(i), static_cast<uint32_t>(j), static_cast<uint32_t>(it),
                               name_of(op.body[j].type)};
            where_ = fmt::format("gpu {} threadblock {} op {}.{} ('{}', iteration {})", gpu.id, tb.id, i, j,
                                 m::op_info(op.body[j].type).name, it);
            lower_op(op.body[j], gpu, it * op.unit_size_bytes, op.unit_size_bytes, true);
          }
        }
      }
      wg.op_count = static_cast<uint32_t>(program_.ops.size()) - wg.first_op;
      program_.workgroups.push_back(wg);
    }
    program_.kernels.push_back(kernel);
  }
  return std::move(program_);
}

void Lowerer::add_gpu(const Geometry& geo, const GpuBuffers& buffers, const m::Gpu& gpu) {
  geometry_.push_back(geo);
  program_.gpus.push_back(buffers);
  gpu_semaphore_base_.push_back(static_cast<uint32_t>(program_.semaphores.size()));
  for (size_t s = 0; s < gpu.semaphores.size(); ++s) {
    program_.semaphores.push_back(
        Semaphore{gpu.id, gpu.semaphores[s], program_.add_name(fmt::format("gpu {} semaphore {}", gpu.id, s))});
  }
}

MemRange Lowerer::range(const m::BufferRef& ref, uint64_t offset, bool packet) {
  MemRange r;
  r.space = space_of(ref.type);
  r.offset_bytes = offset;
  if (packet) r.flags |= MemRange::kPacket;
  if (ref.kind == m::BufferRef::Kind::kSwitch) {
    r.flags |= MemRange::kMulticast;
    r.gpu = program_.add_multicast_group(plan_.gpus[gpu_].switch_channels[ref.resolved].ranks);
  } else {
    r.gpu = ref.rank;
  }
  return r;
}

void Lowerer::emit(OpKind kind, uint8_t flags, const std::vector<MemRange>& ranges, uint64_t bytes, uint32_t sync) {
  GpuOp op;
  op.kind = kind;
  op.flags = flags;
  op.bytes = bytes;
  op.sync = sync;
  program_.add_op(op, ranges, origin_);
}

void Lowerer::load_reduce_store(const std::vector<MemRange>& loads, const std::vector<MemRange>& stores,
                                uint64_t bytes, bool reduce, uint8_t load_flags) {
  emit(OpKind::kLoad, load_flags, loads, bytes);
  if (reduce) emit(OpKind::kReduce, GpuOp::kChained, {}, bytes);
  emit(OpKind::kStore, GpuOp::kChained, stores, bytes);
}

// The semaphore a channel's signal increments: the inbound semaphore of the
// paired channel on the peer (the n-th channel from A to B pairs with the
// n-th from B to A). A wait uses its own channel's inbound semaphore.
uint32_t Lowerer::channel_semaphore(const m::Gpu& gpu, m::ChannelType type, uint32_t channel, bool signal) {
  const m::Channel& ch = gpu.channels(type)[channel];
  uint32_t owner = gpu.id, index = channel, from = ch.peer;
  if (signal) {
    const auto& peer_channels = plan_.gpus[ch.peer].channels(type);
    auto it = std::find_if(peer_channels.begin(), peer_channels.end(), [&](const m::Channel& c) {
      return c.peer == gpu.id && c.ordinal == ch.ordinal;
    });
    if (it == peer_channels.end()) {
      fail(fmt::format("{} channel {} to gpu {} has no counterpart on gpu {} (it declares {} {} channels back to gpu "
                       "{}): the signal would reach no semaphore",
                       m::to_string(type), channel, ch.peer, ch.peer,
                       std::count_if(peer_channels.begin(), peer_channels.end(),
                                     [&](const m::Channel& c) { return c.peer == gpu.id; }),
                       m::to_string(type), gpu.id));
    }
    owner = ch.peer;
    index = static_cast<uint32_t>(it - peer_channels.begin());
    from = gpu.id;
  }
  auto [pos, inserted] = channel_semaphores_.try_emplace({owner, type, index}, 0);
  if (inserted) {
    pos->second = static_cast<uint32_t>(program_.semaphores.size());
    program_.semaphores.push_back(Semaphore{
        owner, 0,
        program_.add_name(fmt::format("gpu {} {} channel {} (from gpu {})", owner, m::to_string(type), index, from))});
  }
  return pos->second;
}

uint32_t Lowerer::barrier(const m::Gpu& gpu, uint32_t id, uint32_t participants) {
  auto [pos, inserted] = barriers_.try_emplace({gpu.id, id}, 0);
  if (inserted) {
    pos->second = static_cast<uint32_t>(program_.barriers.size());
    program_.barriers.push_back(
        Barrier{gpu.id, participants, program_.add_name(fmt::format("gpu {} barrier {}", gpu.id, id))});
  } else if (program_.barriers[pos->second].participants != participants) {
    fail(fmt::format("barrier {} is used with {} and {} threadblocks", id, program_.barriers[pos->second].participants,
                     participants));
  }
  return pos->second;
}

void Lowerer::lower_op(const m::Op& op, const m::Gpu& gpu, uint64_t pipeline_offset, uint64_t unit_bytes,
                       bool in_pipeline) {
  using T = m::OpType;
  gpu_ = gpu.id;
  switch (op.type) {
    case T::kNop:
      emit(OpKind::kNop, 0, {}, 0);
      return;
    case T::kBarrier:
      emit(OpKind::kBarrier, 0, {}, 0, barrier(gpu, op.barrier_id, op.barrier_threadblocks));
      return;
    case T::kSignal:
    case T::kRelaxedSignal:
    case T::kWait:
    case T::kRelaxedWait: {
      const bool signal = op.type == T::kSignal || op.type == T::kRelaxedSignal;
      const bool relaxed = op.type == T::kRelaxedSignal || op.type == T::kRelaxedWait;
      for (uint32_t channel : op.channels) {
        emit(signal ? OpKind::kSemaphoreRelease : OpKind::kSemaphoreAcquire, relaxed ? GpuOp::kRelaxed : 0, {}, 0,
             channel_semaphore(gpu, op.channel_type, channel, signal));
      }
      return;
    }
    case T::kFlush:
      emit(OpKind::kNop, GpuOp::kDrain, {}, 0);
      return;
    case T::kSemAcquire:
    case T::kSemRelease:
      for (uint32_t s : op.semaphores) {
        emit(op.type == T::kSemAcquire ? OpKind::kSemaphoreAcquire : OpKind::kSemaphoreRelease, 0, {}, 0,
             gpu_semaphore_base_[gpu.id] + s);
      }
      return;
    case T::kPipeline:
      fail("internal: nested pipeline");
    default:
      break;
  }

  // Data ops: the bytes this op instance covers in every operand.
  const Geometry& geo = geometry_[gpu.id];
  const m::BufferRef& first = op.src[0];
  const uint64_t op_bytes = geo.offset(uint64_t{first.index} + first.size) - geo.offset(first.index);
  const uint64_t slice_start = slice_offset(op_bytes, op.tbg.tb_id, op.tbg.size, geo.alignment);
  uint64_t bytes = slice_offset(op_bytes, op.tbg.tb_id + 1, op.tbg.size, geo.alignment) - slice_start;
  if (in_pipeline) {
    if (pipeline_offset >= bytes) return;  // this iteration is past the op's end: MSCCL++ does nothing
    bytes = std::min(bytes - pipeline_offset, unit_bytes);
  } else {
    pipeline_offset = 0;
  }
  if (bytes == 0) return;  // a threadblock-group slice of a tiny message: nothing to move
  auto at = [&](const m::BufferRef& ref, bool packet) {
    if (geo.reuses_scratch() && ref.type == m::BufferType::kScratch) {
      // The executor's kernel with reused scratch: a pipeline iteration's
      // offset wraps at a scratch chunk (packet ops are never pipelined).
      return range(ref, geo.scratch_offset(ref.index) + slice_start + pipeline_offset % geo.scratch_chunk_bytes,
                   packet);
    }
    return range(ref, geo.offset(ref.index) + slice_start + pipeline_offset, packet);
  };
  auto all = [&](const std::vector<m::BufferRef>& refs, size_t from, size_t to, bool packet) {
    std::vector<MemRange> out;
    for (size_t i = from; i < std::min(to, refs.size()); ++i) out.push_back(at(refs[i], packet));
    return out;
  };
  auto concat = [](std::vector<MemRange> a, const std::vector<MemRange>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const auto& s = op.src;
  const auto& d = op.dst;
  const size_t n = SIZE_MAX;  // "to the end" for all()
  const bool port = op.channel_type == m::ChannelType::kPort;
  switch (op.type) {
    case T::kCopy:
      emit(OpKind::kMemcpy, 0, {at(s[0], false), at(d[0], false)}, bytes);
      return;
    case T::kGet:
      for (size_t i = 0; i < s.size(); ++i) emit(OpKind::kMemcpy, 0, {at(s[i], false), at(d[i], false)}, bytes);
      return;
    case T::kPut:
    case T::kPutWithSignal:
    case T::kPutWithSignalAndFlush:
      for (size_t i = 0; i < d.size(); ++i) {
        emit(OpKind::kMemcpy, port ? GpuOp::kViaProxy : 0, {at(s[i], false), at(d[i], false)}, bytes);
        if (op.type != T::kPut) {
          emit(OpKind::kSemaphoreRelease, 0, {}, 0, channel_semaphore(gpu, op.channel_type, op.channels[i], true));
        }
      }
      if (op.type == T::kPutWithSignalAndFlush) emit(OpKind::kNop, GpuOp::kDrain, {}, 0);
      return;
    case T::kReduce:
    case T::kReadReduce:
      load_reduce_store(all(s, 0, n, false), {at(d[0], false)}, bytes, true);
      return;
    case T::kReduceSend:
    case T::kReadReduceSend:
      load_reduce_store(all(s, 0, n, false), all(d, 0, n, false), bytes, true);
      return;
    case T::kPutPackets:
      // One write carries data and flag: no signal follows.
      for (size_t i = 0; i < d.size(); ++i) {
        emit(OpKind::kMemcpy, port ? GpuOp::kViaProxy : 0, {at(s[i], port), at(d[i], true)}, bytes);
      }
      return;
    case T::kReadPutPackets:
      if (port) {
        emit(OpKind::kLoad, 0, {at(s[0], true)}, bytes);  // wait until the packets arrived
        for (size_t i = 0; i < d.size(); ++i) {
          emit(OpKind::kMemcpy, GpuOp::kViaProxy, {at(s[0], true), at(d[i], true)}, bytes);
        }
      } else {
        load_reduce_store({at(s[0], true)}, all(d, 0, n, true), bytes, false);
      }
      return;
    case T::kReduceSendPackets:
    case T::kReducePackets:
    case T::kReduceCopySendPackets:
    case T::kReduceCopyPackets:
      // Sources after the first are packets in local scratch; destinations
      // after the first are packets (the reduce-copy forms' local copy, then peers).
      load_reduce_store(concat({at(s[0], false)}, all(s, 1, n, true)), concat({at(d[0], false)}, all(d, 1, n, true)),
                        bytes, true);
      return;
    case T::kCopyPackets:
      emit(OpKind::kMemcpy, 0, {at(s[0], false), at(d[0], true)}, bytes);
      return;
    case T::kUnpackPackets:
      emit(OpKind::kMemcpy, 0, {at(s[0], true), at(d[0], false)}, bytes);
      return;
    case T::kMultiLoadReduceStore:
      if (s.size() != d.size()) fail("switch load-reduce-store needs as many destinations as sources");
      for (size_t i = 0; i < s.size(); ++i) {
        load_reduce_store({at(s[i], false)}, {at(d[i], false)}, bytes, false, GpuOp::kSwitchReduce);
      }
      return;
    case T::kMultiStore:
      load_reduce_store({at(s[0], false)}, {at(d[0], false)}, bytes, false);
      return;
    case T::kMultiStorePackets:
      load_reduce_store({at(s[0], true)}, {at(d[0], true)}, bytes, false);
      return;
    default:
      fail("no load-store model for this op");
  }
}

}  // namespace

Program lower_mscclpp(const mscclpp::Plan& plan, const MscclppLowering& options) {
  return Lowerer(plan, options).run();
}

uint64_t smallest_exact_input_bytes(const mscclpp::Plan& plan) {
  uint64_t bytes = 1;
  bool sized = false;
  for (const mscclpp::Gpu& gpu : plan.gpus) {
    uint64_t slices = 1;
    auto visit = [&](const auto& self, const std::vector<mscclpp::Op>& ops) -> void {
      for (const mscclpp::Op& op : ops) {
        slices = std::lcm(slices, uint64_t{op.tbg.size});
        self(self, op.body);
      }
    };
    for (const mscclpp::Threadblock& tb : gpu.threadblocks) visit(visit, tb.ops);
    const uint64_t chunks = gpu.input_chunks != 0 ? gpu.input_chunks : gpu.output_chunks;
    if (chunks == 0) continue;  // no buffers
    sized = true;
    bytes = std::lcm(bytes, chunks * slices * plan.buffer_alignment_bytes);
  }
  if (!sized) return 0;  // a plan that only synchronizes
  if (bytes < plan.min_message_size_bytes) bytes *= (plan.min_message_size_bytes + bytes - 1) / bytes;
  return bytes;
}

}  // namespace snr::dsim::loadstore
