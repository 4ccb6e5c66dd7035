// The op table (one row per MSCCL++ op) and plan summaries.
#include "formats/mscclpp/plan.h"

#include <fmt/format.h>

#include <array>
#include <map>

namespace snr::mscclpp {
namespace {

// type, name, long name, moves data, packets, pipelinable
constexpr std::array<OpInfo, 30> kOps{{
    {OpType::kNop, "nop", "threadblock sync", false, false, false},
    {OpType::kBarrier, "barrier", "inter-threadblock barrier", false, false, false},
    {OpType::kPut, "put", "put", true, false, true},
    {OpType::kPutWithSignal, "pws", "put with signal", true, false, true},
    {OpType::kPutWithSignalAndFlush, "pwsf", "put with signal and flush", true, false, true},
    {OpType::kGet, "get", "get", true, false, true},
    {OpType::kCopy, "copy", "copy", true, false, true},
    {OpType::kSignal, "signal", "signal", false, false, false},
    {OpType::kWait, "wait", "wait", false, false, false},
    {OpType::kFlush, "flush", "flush", false, false, false},
    {OpType::kReduce, "re", "reduce", true, false, true},
    {OpType::kReduceSend, "res", "reduce-send", true, false, true},
    {OpType::kReadReduce, "rre", "read-reduce", true, false, true},
    {OpType::kReadReduceSend, "rres", "read-reduce-send", true, false, true},
    {OpType::kPutPackets, "ppkt", "put packets", true, true, false},
    {OpType::kReadPutPackets, "rppkt", "read-put packets", true, true, false},
    {OpType::kReduceSendPackets, "respkt", "reduce-send packets", true, true, false},
    {OpType::kCopyPackets, "cpkt", "copy to packets", true, true, false},
    {OpType::kUnpackPackets, "upkt", "unpack packets", true, true, false},
    {OpType::kReducePackets, "repkt", "reduce packets", true, true, false},
    {OpType::kReduceCopyPackets, "recpkt", "reduce-copy packets", true, true, false},
    {OpType::kReduceCopySendPackets, "recspkt", "reduce-copy-send packets", true, true, false},
    {OpType::kMultiLoadReduceStore, "glres", "switch load-reduce-store", true, false, true},
    {OpType::kMultiStore, "gstore", "switch store", true, false, true},
    {OpType::kMultiStorePackets, "gstorepkt", "switch store packets", true, true, false},
    {OpType::kRelaxedSignal, "rlxsignal", "relaxed signal", false, false, false},
    {OpType::kRelaxedWait, "rlxwait", "relaxed wait", false, false, false},
    {OpType::kPipeline, "pipeline", "pipeline", false, false, false},
    {OpType::kSemAcquire, "sem_acquire", "semaphore acquire", false, false, false},
    {OpType::kSemRelease, "sem_release", "semaphore release", false, false, false},
}};

void count(const std::vector<Op>& ops, std::map<OpType, uint64_t>& counts) {
  for (const Op& op : ops) {
    ++counts[op.type];
    count(op.body, counts);
  }
}

}  // namespace

const OpInfo& op_info(OpType type) { return kOps[static_cast<size_t>(type)]; }

std::optional<OpType> op_type_from_name(std::string_view name) {
  for (const OpInfo& info : kOps) {
    if (info.name == name) return info.type;
  }
  return std::nullopt;
}

std::string_view to_string(BufferType type) {
  switch (type) {
    case BufferType::kInput: return "i";
    case BufferType::kOutput: return "o";
    case BufferType::kScratch: return "s";
  }
  return "?";
}

std::string_view to_string(ChannelType type) {
  switch (type) {
    case ChannelType::kNone: return "none";
    case ChannelType::kMemory: return "memory";
    case ChannelType::kPort: return "port";
    case ChannelType::kSwitch: return "switch";
  }
  return "?";
}

std::string_view to_string(Protocol protocol) { return protocol == Protocol::kLL ? "LL" : "Simple"; }

std::string_view to_string(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kNone: return "none";
    case ReduceKind::kSum: return "sum";
    case ReduceKind::kMin: return "min";
    case ReduceKind::kMax: return "max";
  }
  return "?";
}

std::string_view to_string(Plan::Variant variant) {
  switch (variant) {
    case Plan::Variant::kCurrent: return "current";
    case Plan::Variant::kNoSemaphores: return "mid-2025 (no reuse_resources/semaphores)";
    case Plan::Variant::kConcrete: return "concrete (buffer refs with offset)";
  }
  return "?";
}

std::vector<std::pair<OpType, uint64_t>> count_ops(const Plan& plan) {
  std::map<OpType, uint64_t> counts;
  for (const Gpu& gpu : plan.gpus) {
    for (const Threadblock& tb : gpu.threadblocks) count(tb.ops, counts);
  }
  return {counts.begin(), counts.end()};
}

std::string summarize(const Plan& plan) {
  std::string out = fmt::format("plan {} ({}): collective {}, protocol {}, {}in-place, {} GPUs, schema {}\n",
                                plan.name.empty() ? "(unnamed)" : plan.name, plan.variant == Plan::Variant::kCurrent
                                                                                 ? "MSCCL++"
                                                                                 : "MSCCL++ variant",
                                plan.collective, to_string(plan.protocol), plan.inplace ? "" : "not ",
                                plan.gpus.size(), to_string(plan.variant));
  out += fmt::format("threads per block {}, buffer alignment {} B, message size {}..{} B\n", plan.threads_per_block,
                     plan.buffer_alignment_bytes, plan.min_message_size_bytes, plan.max_message_size_bytes);
  for (const Gpu& gpu : plan.gpus) {
    std::map<OpType, uint64_t> counts;
    for (const Threadblock& tb : gpu.threadblocks) count(tb.ops, counts);
    std::string ops;
    for (const auto& [type, n] : counts) ops += fmt::format(" {}={}", op_info(type).name, n);
    out += fmt::format("gpu {}: chunks i/o/s {}/{}/{}, {} threadblocks, channels memory {} port {} switch {}, "
                       "{} remote buffers, {} semaphores; ops:{}\n",
                       gpu.id, gpu.input_chunks, gpu.output_chunks, gpu.scratch_chunks, gpu.threadblocks.size(),
                       gpu.memory_channels.size(), gpu.port_channels.size(), gpu.switch_channels.size(),
                       gpu.remote_buffers.size(), gpu.semaphores.size(), ops);
  }
  return out;
}

}  // namespace snr::mscclpp
