// The MSCCL++ plan reader, one op: its name and fields, its operands
// (buffer references resolved through the threadblock's channels and remote
// buffers) and the operand shapes MSCCL++'s kernel expects for it. The
// indexing rules are those of plan_reader.cc's file comment.
#include <fmt/format.h>

#include <algorithm>

#include "common/error.h"
#include "formats/mscclpp/plan_reader_internal.h"

namespace snr::mscclpp::internal {

Op Reader::read_op(const json& opj, const Gpu& gpu, const Threadblock& tb, const std::string& at, bool in_pipeline) {
  if (!opj.is_object()) fail(at, fmt::format("expected an op object, got {}", describe(opj)));
  const std::string name = string_key(opj, at, "name");
  const auto type = op_type_from_name(name);
  if (!type) fail(at, fmt::format("unknown op '{}'", name));
  const std::string where = fmt::format("{} ('{}')", at, name);
  const OpInfo& info = op_info(*type);
  Op op;
  op.type = *type;
  switch (op.type) {
    case OpType::kNop:
      check_keys(opj, where, {"name"});
      return op;
    case OpType::kBarrier:
      check_keys(opj, where, {"name", "barrier_id", "num_threadblocks"});
      op.barrier_id = static_cast<uint32_t>(uint_key(opj, where, "barrier_id", UINT32_MAX));
      op.barrier_threadblocks = static_cast<uint32_t>(uint_key(opj, where, "num_threadblocks", UINT32_MAX));
      if (op.barrier_threadblocks == 0 || op.barrier_threadblocks > gpu.threadblocks.size()) {
        fail(where, fmt::format("'num_threadblocks' = {} but gpu {} has {} threadblocks", op.barrier_threadblocks,
                                gpu.id, gpu.threadblocks.size()));
      }
      return op;
    case OpType::kSemAcquire:
    case OpType::kSemRelease:
      check_keys(opj, where, {"name", "semaphore_ids"});
      for (const json& id : array(opj, where, "semaphore_ids")) {
        const uint64_t index = uint(id, where, "semaphore_ids", UINT32_MAX);
        if (index >= gpu.semaphores.size()) {
          fail(where, fmt::format("semaphore id {} is dangling: gpu {} declares {} semaphores", index, gpu.id,
                                  gpu.semaphores.size()));
        }
        op.semaphores.push_back(static_cast<uint32_t>(index));
      }
      if (op.semaphores.empty()) fail(where, "'semaphore_ids' is empty");
      return op;
    case OpType::kPipeline: {
      if (in_pipeline) fail(where, "pipelines do not nest");
      check_keys(opj, where, {"name", "iter_context", "ops"});
      const json& context = object(opj, where, "iter_context");
      check_keys(context, where + " iter_context", {"unit_size", "num_chunks"});
      op.unit_size_bytes = uint_key(context, where, "unit_size", UINT32_MAX);
      op.pipeline_chunks = static_cast<uint32_t>(uint_key(context, where, "num_chunks", 1u << 24));
      if (op.unit_size_bytes == 0) fail(where, "'unit_size' must be positive");
      if (op.pipeline_chunks == 0) fail(where, "'num_chunks' must be positive");
      const json& body = array(opj, where, "ops");
      if (body.empty()) fail(where, "the pipeline has no ops");
      for (size_t i = 0; i < body.size(); ++i) {
        op.body.push_back(read_op(body[i], gpu, tb, fmt::format("{}.{}", at, i), true));
        const OpInfo& inner = op_info(op.body.back().type);
        if (inner.moves_data && !inner.pipelinable) {
          fail(fmt::format("{}.{} ('{}')", at, i, inner.name),
               "packet ops cannot run inside a pipeline (MSCCL++ executes them without the iteration offset)");
        }
      }
      return op;
    }
    default:
      break;
  }

  if (opj.contains("channel_type")) {
    op.channel_type = channel_type(opj["channel_type"], where, "channel_type");
  }
  if (opj.contains("channel_ids")) {
    const std::vector<uint32_t>* list = nullptr;
    switch (op.channel_type) {
      case ChannelType::kMemory: list = &tb.memory_channels; break;
      case ChannelType::kPort: list = &tb.port_channels; break;
      case ChannelType::kSwitch: list = &tb.switch_channels; break;
      case ChannelType::kNone: fail(where, "'channel_ids' without a 'channel_type'");
    }
    for (const json& id : array(opj, where, "channel_ids")) {
      const uint64_t index = uint(id, where, "channel_ids", UINT32_MAX);
      if (index >= list->size()) {
        fail(where, fmt::format("channel id {} is dangling: threadblock {} lists {} {} channels", index, tb.id,
                                list->size(), to_string(op.channel_type)));
      }
      op.channels.push_back((*list)[index]);
    }
  }

  if (!info.moves_data) {
    // signal, wait, their relaxed forms, flush
    check_keys(opj, where, {"name", "channel_ids", "channel_type"});
    require(opj, where, "channel_ids");
    const bool port_only = op.type == OpType::kFlush;
    if (op.channel_type != ChannelType::kPort && (port_only || op.channel_type != ChannelType::kMemory)) {
      fail(where, fmt::format("'{}' needs {} channels, got channel_type {}", name,
                              port_only ? "port" : "memory or port", to_string(op.channel_type)));
    }
    if (op.channels.empty()) fail(where, "'channel_ids' is empty");
    return op;
  }

  check_keys(opj, where, {"name", "src_buff", "dst_buff", "channel_type", "channel_ids", "reduce_op", "tbg_info"});
  if (opj.contains("reduce_op")) {
    const json& reduce = opj["reduce_op"];
    if (reduce == "sum") {
      op.reduce = ReduceKind::kSum;
    } else if (reduce == "min") {
      op.reduce = ReduceKind::kMin;
    } else if (reduce == "max") {
      op.reduce = ReduceKind::kMax;
    } else {
      fail(where, fmt::format("'reduce_op' must be \"sum\", \"min\" or \"max\", got {}", describe(reduce)));
    }
  }
  if (opj.contains("tbg_info")) {
    const json& tbg = object(opj, where, "tbg_info");
    check_keys(tbg, where + " tbg_info", {"tb_id", "tbg_size"});
    op.tbg.size = static_cast<uint32_t>(uint_key(tbg, where, "tbg_size", 1u << 16));
    op.tbg.tb_id = static_cast<uint32_t>(uint_key(tbg, where, "tb_id", UINT32_MAX));
    if (op.tbg.size == 0 || op.tbg.tb_id >= op.tbg.size) {
      fail(where, fmt::format("tbg_info tb_id {} is not below tbg_size {}", op.tbg.tb_id, op.tbg.size));
    }
  }
  const json& src = array(opj, where, "src_buff");
  const json& dst = array(opj, where, "dst_buff");
  if (src.empty() || dst.empty()) fail(where, "'src_buff' and 'dst_buff' must not be empty");
  if (src.size() > 64 || dst.size() > 64) fail(where, "more than 64 operands");
  for (size_t i = 0; i < src.size(); ++i) {
    op.src.push_back(read_ref(src[i], gpu, tb, op, fmt::format("{} src_buff[{}]", where, i)));
  }
  for (size_t i = 0; i < dst.size(); ++i) {
    op.dst.push_back(read_ref(dst[i], gpu, tb, op, fmt::format("{} dst_buff[{}]", where, i)));
  }
  check_operands(op, gpu, where);
  return op;
}

BufferRef Reader::read_ref(const json& ref, const Gpu& gpu, const Threadblock& tb, const Op& op,
                           const std::string& where) {
  check_keys(ref, where, {"type", "buffer_id", "switch_channel_id", "index", "size", "offset", "rank"});
  BufferRef out;
  out.index = static_cast<uint32_t>(uint_key(ref, where, "index", 1u << 24));
  out.size = static_cast<uint32_t>(uint_key(ref, where, "size", 1u << 24));
  if (ref.contains("offset")) {
    concrete_ = true;
    out.offset = static_cast<uint32_t>(uint_key(ref, where, "offset", UINT32_MAX));
  }
  const int kinds = int(ref.contains("type")) + int(ref.contains("buffer_id")) + int(ref.contains("switch_channel_id"));
  if (kinds != 1) fail(where, "a buffer ref has exactly one of 'type', 'buffer_id', 'switch_channel_id'");
  uint32_t chunks = 0;
  if (ref.contains("type")) {
    out.kind = BufferRef::Kind::kLocal;
    out.type = buffer_type(ref["type"], where, "type");
    out.rank = gpu.id;
    chunks = gpu.chunks(out.type);
    // MSCCL++'s DSL writes the owning GPU on the local operands of switch
    // ops (its executor ignores it): a local buffer is the executing GPU's.
    if (ref.contains("rank")) {
      if (const uint64_t rank = uint_key(ref, where, "rank", UINT32_MAX); rank != gpu.id) {
        fail(where, fmt::format("'rank' is {} but a buffer with 'type' is gpu {}'s own", rank, gpu.id));
      }
    }
  } else if (ref.contains("rank")) {
    fail(where, "'rank' goes only with 'type' (a local buffer); remote and switch buffers name theirs elsewhere");
  } else if (ref.contains("buffer_id")) {
    out.kind = BufferRef::Kind::kRemote;
    const uint64_t id = uint_key(ref, where, "buffer_id", UINT32_MAX);
    if (op.channel_type != ChannelType::kMemory && op.channel_type != ChannelType::kPort) {
      fail(where, fmt::format("remote buffer_id {} needs the op's channel_type memory or port, got {}", id,
                              to_string(op.channel_type)));
    }
    if (concrete_) {
      // The experimental "concrete" plans number the GPU's remote_buffers from 1
      // (every op's buffer_id is its threadblock's remote buffer plus one).
      const auto& list = op.channel_type == ChannelType::kMemory ? tb.memory_buffers : tb.port_buffers;
      if (id == 0 || std::find(list.begin(), list.end(), id - 1) == list.end()) {
        fail(where, fmt::format("buffer_id {} is dangling: in a concrete plan it names remote buffer {} (1-based), "
                                "which threadblock {} does not refer to over {} channels",
                                id, id == 0 ? std::string("none") : std::to_string(id - 1), tb.id,
                                to_string(op.channel_type)));
      }
      out.resolved = static_cast<uint32_t>(id - 1);
    } else {
      const auto& list = op.channel_type == ChannelType::kMemory ? tb.memory_buffers : tb.port_buffers;
      if (id >= list.size()) {
        fail(where, fmt::format("buffer_id {} is dangling: threadblock {} refers to {} remote buffers over {} "
                                "channels",
                                id, tb.id, list.size(), to_string(op.channel_type)));
      }
      out.resolved = list[id];
    }
    const RemoteBuffer& rb = gpu.remote_buffers[out.resolved];
    out.rank = rb.rank;
    out.type = rb.type;
    chunks = plan_.gpus[rb.rank].chunks(rb.type);
  } else {
    out.kind = BufferRef::Kind::kSwitch;
    const uint64_t id = uint_key(ref, where, "switch_channel_id", UINT32_MAX);
    if (id >= tb.switch_channels.size()) {
      fail(where, fmt::format("switch_channel_id {} is dangling: threadblock {} lists {} switch channels", id, tb.id,
                              tb.switch_channels.size()));
    }
    out.resolved = tb.switch_channels[id];
    const SwitchChannel& sc = gpu.switch_channels[out.resolved];
    out.type = sc.buffer;
    out.rank = gpu.id;
    chunks = UINT32_MAX;
    for (uint32_t member : sc.ranks) chunks = std::min(chunks, plan_.gpus[member].chunks(sc.buffer));
  }
  // A GPU with neither input nor output chunks (a plan that only
  // synchronizes) has buffers of no size: MSCCL++ sizes every chunk, scratch
  // too, from one of the two.
  auto unsized = [&](uint32_t rank) {
    return plan_.gpus[rank].input_chunks == 0 && plan_.gpus[rank].output_chunks == 0;
  };
  uint32_t unsized_owner = unsized(out.rank) ? out.rank : UINT32_MAX;
  if (out.kind == BufferRef::Kind::kSwitch) {
    for (uint32_t member : gpu.switch_channels[out.resolved].ranks) {
      if (unsized(member)) unsized_owner = std::min(unsized_owner, member);
    }
  }
  if (unsized_owner != UINT32_MAX) {
    fail(where, fmt::format("gpu {} has neither input nor output chunks, so its '{}' chunks have no size (MSCCL++ "
                            "sizes every chunk from one of the two)",
                            unsized_owner, to_string(out.type)));
  }
  if (!out.offset && (uint64_t{out.index} + out.size > chunks || out.size == 0)) {
    fail(where, fmt::format("chunks [{}, {}) of buffer '{}' on gpu {} are out of range: it has {} chunks", out.index,
                            uint64_t{out.index} + out.size, to_string(out.type), out.rank, chunks));
  }
  return out;
}

// The operand shapes MSCCL++'s kernel expects for each op.
void Reader::check_operands(const Op& op, const Gpu& gpu, const std::string& where) const {
  using Kind = BufferRef::Kind;
  auto count = [](const std::vector<BufferRef>& refs, size_t from, Kind kind) {
    size_t n = 0;
    for (size_t i = from; i < refs.size(); ++i) n += refs[i].kind == kind;
    return n;
  };
  auto expect = [&](bool ok, const char* shape) {
    if (!ok) fail(where, fmt::format("operands do not fit the op: expected {}", shape));
  };
  auto scratch = [&](const BufferRef& ref, const char* role) {
    if (ref.type != BufferType::kScratch) {
      fail(where, fmt::format("{} must be a scratch buffer (LL packets live in scratch), got '{}'", role,
                              to_string(ref.type)));
    }
  };
  const auto& s = op.src;
  const auto& d = op.dst;
  const bool local0 = s[0].kind == Kind::kLocal && d[0].kind == Kind::kLocal;
  auto need_channel = [&](std::initializer_list<ChannelType> allowed) {
    if (std::find(allowed.begin(), allowed.end(), op.channel_type) == allowed.end()) {
      fail(where, fmt::format("channel_type {} is not valid for this op", to_string(op.channel_type)));
    }
  };
  switch (op.type) {
    case OpType::kCopy:
      expect(s.size() == 1 && d.size() == 1 && local0, "one local source and one local destination");
      break;
    case OpType::kPut:
    case OpType::kPutWithSignal:
    case OpType::kPutWithSignalAndFlush:
      if (op.type == OpType::kPut) {
        need_channel({ChannelType::kMemory, ChannelType::kPort});
      } else {
        need_channel({ChannelType::kPort});
      }
      expect(s.size() == d.size() && count(s, 0, Kind::kLocal) == s.size() && count(d, 0, Kind::kRemote) == d.size(),
             "n local sources and n remote destinations");
      break;
    case OpType::kGet:
      need_channel({ChannelType::kMemory});
      expect(s.size() == d.size() && count(s, 0, Kind::kRemote) == s.size() && count(d, 0, Kind::kLocal) == d.size(),
             "n remote sources and n local destinations");
      break;
    case OpType::kReduce:
      expect(s.size() >= 2 && d.size() == 1 && count(s, 0, Kind::kLocal) == s.size() && local0,
             "at least two local sources and one local destination");
      break;
    case OpType::kReduceSend:
      need_channel({ChannelType::kMemory});
      expect(s.size() >= 2 && d.size() >= 2 && count(s, 0, Kind::kLocal) == s.size() && local0 &&
                 count(d, 1, Kind::kRemote) == d.size() - 1,
             "local sources, a local destination, then remote destinations");
      break;
    case OpType::kReadReduce:
      need_channel({ChannelType::kMemory});
      expect(s.size() >= 2 && d.size() == 1 && local0 && count(s, 1, Kind::kRemote) == s.size() - 1,
             "a local source, then remote sources, and one local destination");
      break;
    case OpType::kReadReduceSend:
      need_channel({ChannelType::kMemory});
      expect(s.size() >= 2 && d.size() >= 2 && local0 && count(s, 1, Kind::kRemote) == s.size() - 1 &&
                 count(d, 1, Kind::kRemote) == d.size() - 1,
             "a local source, remote sources, a local destination and remote destinations");
      break;
    case OpType::kPutPackets:
      need_channel({ChannelType::kMemory, ChannelType::kPort});
      expect(s.size() == d.size() && count(s, 0, Kind::kLocal) == s.size() && count(d, 0, Kind::kRemote) == d.size(),
             "n local sources and n remote destinations");
      for (const auto& ref : d) scratch(ref, "a packet destination");
      break;
    case OpType::kReadPutPackets:
      need_channel({ChannelType::kMemory, ChannelType::kPort});
      expect(s.size() == 1 && s[0].kind == Kind::kLocal && count(d, 0, Kind::kRemote) == d.size(),
             "one local packet source and remote destinations");
      scratch(s[0], "the packet source");
      for (const auto& ref : d) scratch(ref, "a packet destination");
      break;
    case OpType::kReduceSendPackets:
    case OpType::kReducePackets:
    case OpType::kReduceCopySendPackets:
    case OpType::kReduceCopyPackets: {
      const bool copies = op.type == OpType::kReduceCopySendPackets || op.type == OpType::kReduceCopyPackets;
      const bool sends = op.type == OpType::kReduceSendPackets || op.type == OpType::kReduceCopySendPackets;
      const size_t local_dsts = copies ? 2 : 1;
      if (sends) need_channel({ChannelType::kMemory});
      expect(s.size() >= 2 && count(s, 0, Kind::kLocal) == s.size() && d.size() >= local_dsts &&
                 count(d, 0, Kind::kLocal) == local_dsts && (sends ? d.size() > local_dsts : d.size() == local_dsts),
             copies ? (sends ? "local sources, a local destination, a local packet copy, then remote destinations"
                             : "local sources, a local destination and a local packet copy")
                    : (sends ? "local sources, a local destination, then remote destinations"
                             : "local sources and one local destination"));
      for (size_t i = 1; i < s.size(); ++i) scratch(s[i], "a packet source");
      for (size_t i = 1; i < d.size(); ++i) scratch(d[i], "a packet destination");
      break;
    }
    case OpType::kCopyPackets:
      expect(s.size() == 1 && d.size() == 1 && local0, "one local source and one local packet destination");
      scratch(d[0], "the packet destination");
      break;
    case OpType::kUnpackPackets:
      expect(s.size() == 1 && d.size() == 1 && local0, "one local packet source and one local destination");
      scratch(s[0], "the packet source");
      break;
    case OpType::kMultiLoadReduceStore:
      need_channel({ChannelType::kSwitch});
      expect(count(s, 0, Kind::kSwitch) == s.size() && count(d, 0, Kind::kSwitch) == d.size(),
             "switch sources and switch destinations");
      break;
    case OpType::kMultiStore:
    case OpType::kMultiStorePackets:
      need_channel({ChannelType::kSwitch});
      expect(s.size() == 1 && s[0].kind == Kind::kLocal && d.size() == 1 && d[0].kind == Kind::kSwitch,
             "one local source and one switch destination");
      if (op.type == OpType::kMultiStorePackets) scratch(s[0], "the packet source");
      break;
    default:
      fail(where, "internal: op without operand rules");
  }
  for (const auto* refs : {&s, &d}) {
    for (const BufferRef& ref : *refs) {
      if (ref.size != s[0].size) {
        fail(where, fmt::format("operands differ in size ({} and {} chunks)", s[0].size, ref.size));
      }
    }
  }
  // A channel named by the op must lead to the GPU owning the remote operand.
  if (!op.channels.empty() && (op.channel_type == ChannelType::kMemory || op.channel_type == ChannelType::kPort)) {
    const auto& remote = op.type == OpType::kGet ? s : d;
    std::vector<const BufferRef*> refs;
    for (const BufferRef& ref : remote) {
      if (ref.kind == Kind::kRemote) refs.push_back(&ref);
    }
    if (op.channel_type == ChannelType::kPort && op.channels.size() != refs.size()) {
      fail(where, fmt::format("{} port channels for {} remote operands", op.channels.size(), refs.size()));
    }
    for (size_t i = 0; i < std::min(refs.size(), op.channels.size()); ++i) {
      const Channel& ch = gpu.channels(op.channel_type)[op.channels[i]];
      if (ch.peer != refs[i]->rank) {
        fail(where, fmt::format("channel {} leads to gpu {} but remote operand {} is on gpu {}", i, ch.peer, i,
                                refs[i]->rank));
      }
    }
  }
}

}  // namespace snr::mscclpp::internal
