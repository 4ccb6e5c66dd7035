// MSCCL++ execution plans (the JSON the MSCCL++ DSL writes and its executor
// reads) as a checked, reference-resolved model. Everything a plan refers to
// by index — channels, remote buffers, switch channels, semaphores — is
// resolved and range-checked by the reader, so layers above never see a
// dangling index. Byte offsets are not computed here: they depend on the
// message size and belong to the lowering (dsim/loadstore).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snr::mscclpp {

enum class BufferType : uint8_t { kInput, kOutput, kScratch };
enum class ChannelType : uint8_t { kNone, kMemory, kPort, kSwitch };
enum class Protocol : uint8_t { kSimple, kLL };
enum class ReduceKind : uint8_t { kNone, kSum, kMin, kMax };

// Every op name the MSCCL++ executor accepts, in its own spelling.
enum class OpType : uint8_t {
  kNop, kBarrier, kPut, kPutWithSignal, kPutWithSignalAndFlush, kGet, kCopy, kSignal, kWait, kFlush,
  kReduce, kReduceSend, kReadReduce, kReadReduceSend,
  kPutPackets, kReadPutPackets, kReduceSendPackets, kCopyPackets, kUnpackPackets, kReducePackets,
  kReduceCopyPackets, kReduceCopySendPackets,
  kMultiLoadReduceStore, kMultiStore, kMultiStorePackets,
  kRelaxedSignal, kRelaxedWait, kPipeline, kSemAcquire, kSemRelease,
};

// What the reader and the lowering need to know about an op type; one row
// per type in op_table.cc.
struct OpInfo {
  OpType type;
  std::string_view name;       // as written in plans ("rres")
  std::string_view long_name;  // for messages ("read-reduce-send")
  bool moves_data;             // has src_buff/dst_buff
  bool uses_packets;           // LL packet format on some of its buffers
  bool pipelinable;            // honours a pipeline iteration's offset and unit size
};

const OpInfo& op_info(OpType type);
std::optional<OpType> op_type_from_name(std::string_view name);
std::string_view to_string(BufferType type);  // "i", "o", "s"
std::string_view to_string(ChannelType type);  // "memory", "port", "switch", "none"
std::string_view to_string(Protocol protocol);  // "Simple", "LL"
std::string_view to_string(ReduceKind kind);

// One operand of a data op: `size` chunks starting at chunk `index` of a
// buffer that is local, remote (another GPU's buffer reached over a channel)
// or a switch (NVLS multicast) buffer shared by a group of GPUs.
struct BufferRef {
  enum class Kind : uint8_t { kLocal, kRemote, kSwitch };
  Kind kind = Kind::kLocal;
  BufferType type = BufferType::kInput;  // resolved for remote and switch refs too
  uint32_t rank = 0;           // owning GPU (local: the executing GPU; switch: unused)
  uint32_t resolved = 0;       // remote: index into Gpu::remote_buffers; switch: into Gpu::switch_channels
  uint32_t index = 0;          // first chunk
  uint32_t size = 0;           // chunk count
  std::optional<uint32_t> offset;  // only in "concrete" plans (see Plan::variant)
};

struct TbgInfo {
  uint32_t tb_id = 0;  // this threadblock's slice of the op
  uint32_t size = 1;   // threadblocks sharing the op
};

struct Op {
  OpType type = OpType::kNop;
  ChannelType channel_type = ChannelType::kNone;
  ReduceKind reduce = ReduceKind::kNone;
  // Resolved channels: indices into Gpu::memory_channels / port_channels /
  // switch_channels by channel_type (the plan's ids index the threadblock's list).
  std::vector<uint32_t> channels;
  std::vector<BufferRef> src, dst;
  TbgInfo tbg;
  uint32_t barrier_id = 0, barrier_threadblocks = 0;  // kBarrier
  std::vector<uint32_t> semaphores;                   // kSemAcquire/kSemRelease: Gpu::semaphores
  uint64_t unit_size_bytes = 0;                       // kPipeline
  uint32_t pipeline_chunks = 0;                       // kPipeline
  std::vector<Op> body;                               // kPipeline
};

// A point-to-point channel to `peer`. `ordinal` counts this GPU's earlier
// channels of the same type to the same peer: MSCCL++ pairs the n-th channel
// from A to B with the n-th channel from B to A (their semaphores).
struct Channel {
  uint32_t peer = 0;
  uint32_t ordinal = 0;
};

struct SwitchChannel {
  BufferType buffer = BufferType::kInput;
  uint32_t chunks = 0;            // rank group "size"
  std::vector<uint32_t> ranks;    // group members
};

struct RemoteBuffer {
  uint32_t rank = 0;
  BufferType type = BufferType::kInput;
  bool via_memory = false, via_port = false;
};

struct Threadblock {
  uint32_t id = 0;
  // Channel lists by type (indices into the GPU's flattened channels) and the
  // remote buffers reachable per access channel type (indices into
  // Gpu::remote_buffers): an op's channel_ids / buffer_id index these.
  std::vector<uint32_t> memory_channels, port_channels, switch_channels;
  std::vector<uint32_t> memory_buffers, port_buffers;
  std::vector<Op> ops;
};

struct Gpu {
  uint32_t id = 0;
  uint32_t input_chunks = 0, output_chunks = 0, scratch_chunks = 0;
  std::vector<Channel> memory_channels, port_channels;  // flattened `connected_to`, in plan order
  std::vector<SwitchChannel> switch_channels;           // one per rank group
  std::vector<RemoteBuffer> remote_buffers;
  std::vector<uint32_t> semaphores;                     // initial values
  std::vector<Threadblock> threadblocks;                // threadblocks[i].id == i

  uint32_t chunks(BufferType type) const {
    return type == BufferType::kInput ? input_chunks : type == BufferType::kOutput ? output_chunks : scratch_chunks;
  }
  const std::vector<Channel>& channels(ChannelType type) const {
    return type == ChannelType::kPort ? port_channels : memory_channels;
  }
};

struct Plan {
  // kCurrent: the schema MSCCL++ writes since its new DSL (Aug 2025).
  // kNoSemaphores: the mid-2025 variant without `reuse_resources` and
  //   per-GPU `semaphores` (the current executor reads it with defaults).
  // kConcrete: an experimental variant whose buffer refs carry an `offset`
  //   (read, but not lowered: its buffer_id and units differ).
  enum class Variant : uint8_t { kCurrent, kNoSemaphores, kConcrete };
  Variant variant = Variant::kCurrent;
  std::string name;
  std::string collective;
  Protocol protocol = Protocol::kSimple;
  bool inplace = false;
  bool reuse_resources = false;
  bool double_scratch_buffer = false;
  uint32_t threads_per_block = 1024;
  uint32_t buffer_alignment_bytes = 16;
  uint64_t min_message_size_bytes = 0;
  uint64_t max_message_size_bytes = UINT64_MAX;
  std::vector<Gpu> gpus;  // gpus[i].id == i
};

std::string_view to_string(Plan::Variant variant);

// Op counts by name over the whole plan (pipeline bodies counted once each,
// the pipeline op itself too), in op-type order.
std::vector<std::pair<OpType, uint64_t>> count_ops(const Plan& plan);

// A short, deterministic text summary (golden files, `snr collective info`).
std::string summarize(const Plan& plan);

}  // namespace snr::mscclpp
