// MSCCL++ execution-plan reader. The schema and the meaning of each index
// follow MSCCL++'s executor (src/core/executor/execution_plan.cc): an op's
// `channel_ids` index its threadblock's channel list of the op's channel
// type, whose entries index the GPU's channels of that type flattened in
// plan order (one per `connected_to` peer); an op's `buffer_id` indexes the
// threadblock's remote buffers reachable over the op's channel type, whose
// entries index the GPU's `remote_buffers`; `switch_channel_id` indexes the
// threadblock's switch channels, whose entries index the GPU's switch rank
// groups.
#include "formats/mscclpp/plan_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::mscclpp {
namespace {

using json = nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Plan read(const json& root);

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(fmt::format("{}: {}: {}", source_, where, what));
  }

  void check_keys(const json& obj, const std::string& where, std::initializer_list<std::string_view> allowed) const;
  const json& require(const json& obj, const std::string& where, std::string_view key) const;
  const json& object(const json& obj, const std::string& where, std::string_view key) const;
  const json& array(const json& obj, const std::string& where, std::string_view key) const;
  uint64_t uint(const json& value, const std::string& where, std::string_view key, uint64_t max) const;
  uint64_t uint_key(const json& obj, const std::string& where, std::string_view key, uint64_t max) const {
    return uint(require(obj, where, key), where, key, max);
  }
  std::string string_key(const json& obj, const std::string& where, std::string_view key) const;
  bool bool_key(const json& obj, const std::string& where, std::string_view key) const;
  BufferType buffer_type(const json& value, const std::string& where, std::string_view key) const;
  ChannelType channel_type(const json& value, const std::string& where, std::string_view key) const;

  void read_gpu_header(const json& gpu, size_t index, Gpu& out);
  void read_threadblocks(const json& gpu, Gpu& out);
  Op read_op(const json& op, const Gpu& gpu, const Threadblock& tb, const std::string& where, bool in_pipeline);
  BufferRef read_ref(const json& ref, const Gpu& gpu, const Threadblock& tb, const Op& op, const std::string& where);
  void check_operands(const Op& op, const Gpu& gpu, const std::string& where) const;

  std::string source_;
  Plan plan_;
  bool concrete_ = false;
};

std::string describe(const json& value) {
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

void Reader::check_keys(const json& obj, const std::string& where,
                        std::initializer_list<std::string_view> allowed) const {
  if (!obj.is_object()) fail(where, fmt::format("expected an object, got {}", describe(obj)));
  for (const auto& item : obj.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      std::string list;
      for (std::string_view key : allowed) list += (list.empty() ? "" : ", ") + std::string(key);
      fail(where, fmt::format("unknown key '{}' (expected: {})", item.key(), list));
    }
  }
}

const json& Reader::require(const json& obj, const std::string& where, std::string_view key) const {
  auto it = obj.find(key);
  if (it == obj.end()) fail(where, fmt::format("missing key '{}'", key));
  return *it;
}

const json& Reader::object(const json& obj, const std::string& where, std::string_view key) const {
  const json& value = require(obj, where, key);
  if (!value.is_object()) fail(where, fmt::format("'{}' must be an object, got {}", key, describe(value)));
  return value;
}

const json& Reader::array(const json& obj, const std::string& where, std::string_view key) const {
  const json& value = require(obj, where, key);
  if (!value.is_array()) fail(where, fmt::format("'{}' must be an array, got {}", key, describe(value)));
  return value;
}

uint64_t Reader::uint(const json& value, const std::string& where, std::string_view key, uint64_t max) const {
  if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0)) {
    fail(where, fmt::format("'{}' must be a non-negative integer, got {}", key, describe(value)));
  }
  const uint64_t number = value.get<uint64_t>();
  if (number > max) fail(where, fmt::format("'{}' = {} is out of range (at most {})", key, number, max));
  return number;
}

std::string Reader::string_key(const json& obj, const std::string& where, std::string_view key) const {
  const json& value = require(obj, where, key);
  if (!value.is_string()) fail(where, fmt::format("'{}' must be a string, got {}", key, describe(value)));
  return value.get<std::string>();
}

bool Reader::bool_key(const json& obj, const std::string& where, std::string_view key) const {
  const json& value = require(obj, where, key);
  if (!value.is_boolean()) fail(where, fmt::format("'{}' must be true or false, got {}", key, describe(value)));
  return value.get<bool>();
}

BufferType Reader::buffer_type(const json& value, const std::string& where, std::string_view key) const {
  if (value == "i") return BufferType::kInput;
  if (value == "o") return BufferType::kOutput;
  if (value == "s") return BufferType::kScratch;
  fail(where, fmt::format("'{}' must be a buffer type \"i\", \"o\" or \"s\", got {}", key, describe(value)));
}

ChannelType Reader::channel_type(const json& value, const std::string& where, std::string_view key) const {
  if (value == "memory") return ChannelType::kMemory;
  if (value == "port") return ChannelType::kPort;
  if (value == "switch") return ChannelType::kSwitch;
  if (value == "none") return ChannelType::kNone;
  if (value == "sm" || value == "proxy" || value == "nvls") {
    fail(where, fmt::format("'{}' = {} is a pre-August-2025 MSCCL++ channel name (now memory/port/switch)", key,
                            describe(value)));
  }
  fail(where, fmt::format("'{}' must be \"memory\", \"port\", \"switch\" or \"none\", got {}", key, describe(value)));
}

// The pre-August-2025 schema: camelCase GPU keys, chunk groups, and ops
// addressing channels as i_cids/o_cids with buffers in i_buff/o_buff.
void reject_legacy_schema(const json& root, const std::string& source) {
  if (!root.is_object()) return;
  auto gpus = root.find("gpus");
  if (gpus == root.end() || !gpus->is_array() || gpus->empty() || !(*gpus)[0].is_object()) return;
  const json& gpu = (*gpus)[0];
  for (std::string_view key : {"inputChunks", "outputChunks", "scratchChunks", "chunkGroups"}) {
    if (gpu.contains(key)) {
      throw Error(fmt::format(
          "{}: MSCCL++ execution plan in the pre-August-2025 schema (GPU key '{}'): that schema spells chunk counts "
          "in camelCase with 'chunkGroups', names channels sm/proxy/nvls with 'connectedTo'/'rankGroups', and "
          "addresses op operands as i_buff/o_buff with i_cids/o_cids and 'cnt'; the current schema uses "
          "input_chunks/output_chunks/scratch_chunks, memory/port/switch channels, remote_buffers, semaphores, "
          "and src_buff/dst_buff with chunk index and size. Regenerate the plan with the current MSCCL++ DSL",
          source, key));
    }
  }
}

Plan Reader::read(const json& root) {
  reject_legacy_schema(root, source_);
  const std::string where = "plan";
  check_keys(root, where,
             {"name", "collective", "protocol", "inplace", "reuse_resources", "gpus", "num_threads_per_block",
              "use_double_scratch_buffer", "buffer_alignment", "min_message_size", "max_message_size"});
  const json& name = require(root, where, "name");
  if (name.is_string()) {
    plan_.name = name.get<std::string>();
  } else if (!name.is_null()) {
    fail(where, fmt::format("'name' must be a string, got {}", describe(name)));
  }
  plan_.collective = string_key(root, where, "collective");
  const std::string protocol = string_key(root, where, "protocol");
  if (protocol == "Simple") {
    plan_.protocol = Protocol::kSimple;
  } else if (protocol == "LL") {
    plan_.protocol = Protocol::kLL;
  } else {
    fail(where, fmt::format("'protocol' must be \"Simple\" or \"LL\", got \"{}\"", protocol));
  }
  plan_.inplace = bool_key(root, where, "inplace");
  const bool has_reuse = root.contains("reuse_resources");
  if (has_reuse) plan_.reuse_resources = bool_key(root, where, "reuse_resources");
  if (root.contains("use_double_scratch_buffer")) {
    plan_.double_scratch_buffer = bool_key(root, where, "use_double_scratch_buffer");
  }
  if (root.contains("num_threads_per_block")) {
    plan_.threads_per_block = static_cast<uint32_t>(uint_key(root, where, "num_threads_per_block", 4096));
    if (plan_.threads_per_block == 0) fail(where, "'num_threads_per_block' must be positive");
  }
  if (root.contains("buffer_alignment")) {
    plan_.buffer_alignment_bytes = static_cast<uint32_t>(uint_key(root, where, "buffer_alignment", 1u << 20));
    if (plan_.buffer_alignment_bytes == 0) fail(where, "'buffer_alignment' must be positive");
  }
  if (root.contains("min_message_size")) plan_.min_message_size_bytes = uint_key(root, where, "min_message_size", UINT64_MAX);
  if (root.contains("max_message_size")) plan_.max_message_size_bytes = uint_key(root, where, "max_message_size", UINT64_MAX);
  if (plan_.min_message_size_bytes > plan_.max_message_size_bytes) {
    fail(where, "'min_message_size' is larger than 'max_message_size'");
  }

  const json& gpus = array(root, where, "gpus");
  if (gpus.empty()) fail(where, "'gpus' is empty");
  if (gpus.size() > (1u << 20)) fail(where, fmt::format("{} GPUs is more than this reader accepts", gpus.size()));
  plan_.gpus.resize(gpus.size());
  bool all_have_semaphores = true;
  for (size_t g = 0; g < gpus.size(); ++g) {
    read_gpu_header(gpus[g], g, plan_.gpus[g]);
    all_have_semaphores = all_have_semaphores && gpus[g].contains("semaphores");
  }
  for (size_t g = 0; g < gpus.size(); ++g) read_threadblocks(gpus[g], plan_.gpus[g]);
  if (concrete_) {
    plan_.variant = Plan::Variant::kConcrete;
  } else if (!has_reuse && !all_have_semaphores) {
    plan_.variant = Plan::Variant::kNoSemaphores;
  }
  return std::move(plan_);
}

void Reader::read_gpu_header(const json& gpu, size_t index, Gpu& out) {
  const std::string where = fmt::format("gpu {}", index);
  check_keys(gpu, where,
             {"id", "input_chunks", "output_chunks", "scratch_chunks", "threadblocks", "channels", "remote_buffers",
              "semaphores"});
  out.id = static_cast<uint32_t>(uint_key(gpu, where, "id", UINT32_MAX));
  if (out.id != index) fail(where, fmt::format("'id' is {} but GPUs must be listed in id order", out.id));
  constexpr uint64_t kMaxChunks = 1u << 24;
  out.input_chunks = static_cast<uint32_t>(uint_key(gpu, where, "input_chunks", kMaxChunks));
  out.output_chunks = static_cast<uint32_t>(uint_key(gpu, where, "output_chunks", kMaxChunks));
  out.scratch_chunks = static_cast<uint32_t>(uint_key(gpu, where, "scratch_chunks", kMaxChunks));
  const size_t ngpus = plan_.gpus.size();

  const json& channels = array(gpu, where, "channels");
  for (size_t c = 0; c < channels.size(); ++c) {
    const std::string cw = fmt::format("{} channels[{}]", where, c);
    const json& channel = channels[c];
    if (!channel.is_object()) fail(cw, "expected an object");
    const ChannelType type = channel_type(require(channel, cw, "channel_type"), cw, "channel_type");
    if (type == ChannelType::kSwitch) {
      check_keys(channel, cw, {"channel_type", "buffer_type", "rank_groups"});
      const BufferType buffer = buffer_type(require(channel, cw, "buffer_type"), cw, "buffer_type");
      const json& groups = array(channel, cw, "rank_groups");
      for (size_t r = 0; r < groups.size(); ++r) {
        const std::string gw = fmt::format("{} rank_groups[{}]", cw, r);
        check_keys(groups[r], gw, {"size", "ranks"});
        SwitchChannel sc;
        sc.buffer = buffer;
        sc.chunks = static_cast<uint32_t>(uint_key(groups[r], gw, "size", kMaxChunks));
        const json& ranks = array(groups[r], gw, "ranks");
        if (ranks.empty()) fail(gw, "'ranks' is empty");
        bool has_self = false;
        for (const json& rank : ranks) {
          const uint32_t member = static_cast<uint32_t>(uint(rank, gw, "ranks", ngpus - 1));
          if (std::find(sc.ranks.begin(), sc.ranks.end(), member) != sc.ranks.end()) {
            fail(gw, fmt::format("rank {} is listed twice", member));
          }
          has_self = has_self || member == out.id;
          sc.ranks.push_back(member);
        }
        if (!has_self) fail(gw, fmt::format("the group does not include gpu {} itself", out.id));
        out.switch_channels.push_back(std::move(sc));
      }
    } else if (type == ChannelType::kMemory || type == ChannelType::kPort) {
      check_keys(channel, cw, {"channel_type", "connected_to"});
      auto& list = type == ChannelType::kMemory ? out.memory_channels : out.port_channels;
      for (const json& peer_value : array(channel, cw, "connected_to")) {
        const uint32_t peer = static_cast<uint32_t>(uint(peer_value, cw, "connected_to", ngpus - 1));
        if (peer == out.id) fail(cw, fmt::format("a channel connects gpu {} to itself", peer));
        const auto ordinal = std::count_if(list.begin(), list.end(), [&](const Channel& ch) { return ch.peer == peer; });
        list.push_back(Channel{peer, static_cast<uint32_t>(ordinal)});
      }
    } else {
      fail(cw, "'channel_type' \"none\" is not a channel a plan can declare");
    }
  }

  const json& remote = array(gpu, where, "remote_buffers");
  for (size_t b = 0; b < remote.size(); ++b) {
    const std::string bw = fmt::format("{} remote_buffers[{}]", where, b);
    check_keys(remote[b], bw, {"rank", "type", "access_channel_types"});
    RemoteBuffer rb;
    rb.rank = static_cast<uint32_t>(uint_key(remote[b], bw, "rank", ngpus - 1));
    rb.type = buffer_type(require(remote[b], bw, "type"), bw, "type");
    for (const json& access : array(remote[b], bw, "access_channel_types")) {
      const ChannelType type = channel_type(access, bw, "access_channel_types");
      if (type == ChannelType::kMemory) {
        rb.via_memory = true;
      } else if (type == ChannelType::kPort) {
        rb.via_port = true;
      } else {
        fail(bw, fmt::format("remote buffers are reached over memory or port channels, not {}", to_string(type)));
      }
    }
    out.remote_buffers.push_back(rb);
  }

  if (gpu.contains("semaphores")) {
    const json& semaphores = array(gpu, where, "semaphores");
    for (size_t s = 0; s < semaphores.size(); ++s) {
      const std::string sw = fmt::format("{} semaphores[{}]", where, s);
      check_keys(semaphores[s], sw, {"init_value"});
      out.semaphores.push_back(static_cast<uint32_t>(uint_key(semaphores[s], sw, "init_value", UINT32_MAX)));
    }
  }
}

void Reader::read_threadblocks(const json& gpu, Gpu& out) {
  const json& tbs = array(gpu, fmt::format("gpu {}", out.id), "threadblocks");
  out.threadblocks.resize(tbs.size());
  for (size_t t = 0; t < tbs.size(); ++t) {
    const std::string where = fmt::format("gpu {} threadblock {}", out.id, t);
    const json& tbj = tbs[t];
    check_keys(tbj, where, {"id", "ops", "channels", "remote_buffer_refs"});
    Threadblock& tb = out.threadblocks[t];
    tb.id = static_cast<uint32_t>(uint_key(tbj, where, "id", UINT32_MAX));
    if (tb.id != t) fail(where, fmt::format("'id' is {} but threadblocks must be listed in id order", tb.id));
    if (tbj.contains("channels")) {
      const json& channels = array(tbj, where, "channels");
      for (size_t c = 0; c < channels.size(); ++c) {
        const std::string cw = fmt::format("{} channels[{}]", where, c);
        check_keys(channels[c], cw, {"channel_type", "channel_ids", "buff"});
        const ChannelType type = channel_type(require(channels[c], cw, "channel_type"), cw, "channel_type");
        if (channels[c].contains("buff")) buffer_type(channels[c]["buff"], cw, "buff");
        size_t limit = 0;
        std::vector<uint32_t>* list = nullptr;
        if (type == ChannelType::kMemory) {
          limit = out.memory_channels.size();
          list = &tb.memory_channels;
        } else if (type == ChannelType::kPort) {
          limit = out.port_channels.size();
          list = &tb.port_channels;
        } else if (type == ChannelType::kSwitch) {
          limit = out.switch_channels.size();
          list = &tb.switch_channels;
        } else {
          fail(cw, "'channel_type' \"none\" has no channels");
        }
        for (const json& id : array(channels[c], cw, "channel_ids")) {
          const uint64_t index = uint(id, cw, "channel_ids", UINT32_MAX);
          if (index >= limit) {
            fail(cw, fmt::format("channel id {} is out of range: gpu {} has {} {} channels", index, out.id, limit,
                                 to_string(type)));
          }
          list->push_back(static_cast<uint32_t>(index));
        }
      }
    }
    if (tbj.contains("remote_buffer_refs")) {
      const json& refs = array(tbj, where, "remote_buffer_refs");
      for (size_t r = 0; r < refs.size(); ++r) {
        const std::string rw = fmt::format("{} remote_buffer_refs[{}]", where, r);
        check_keys(refs[r], rw, {"access_channel_type", "remote_buffer_ids"});
        const ChannelType type = channel_type(require(refs[r], rw, "access_channel_type"), rw, "access_channel_type");
        if (type != ChannelType::kMemory && type != ChannelType::kPort) {
          fail(rw, fmt::format("remote buffers are reached over memory or port channels, not {}", to_string(type)));
        }
        for (const json& id : array(refs[r], rw, "remote_buffer_ids")) {
          const uint64_t index = uint(id, rw, "remote_buffer_ids", UINT32_MAX);
          if (index >= out.remote_buffers.size()) {
            fail(rw, fmt::format("remote buffer id {} is out of range: gpu {} has {} remote buffers", index, out.id,
                                 out.remote_buffers.size()));
          }
          const RemoteBuffer& rb = out.remote_buffers[index];
          if ((type == ChannelType::kMemory && !rb.via_memory) || (type == ChannelType::kPort && !rb.via_port)) {
            fail(rw, fmt::format("remote buffer {} is not accessible over {} channels", index, to_string(type)));
          }
          (type == ChannelType::kMemory ? tb.memory_buffers : tb.port_buffers).push_back(static_cast<uint32_t>(index));
        }
      }
    }
    const json& ops = array(tbj, where, "ops");
    tb.ops.reserve(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) {
      tb.ops.push_back(read_op(ops[i], out, tb, fmt::format("{} op {}", where, i), false));
    }
  }
}

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

}  // namespace

Plan parse_plan(std::string_view json_text, const std::string& source) {
  return Reader(source).read(parse_json_input(json_text, source));
}

Plan read_plan_file(const std::string& path) { return parse_plan(read_file(path), path); }

}  // namespace snr::mscclpp
