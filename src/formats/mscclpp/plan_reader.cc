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

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"
#include "formats/mscclpp/plan_reader_internal.h"

namespace snr::mscclpp {
namespace internal {

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

namespace {

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

}  // namespace

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

}  // namespace internal

Plan parse_plan(std::string_view json_text, const std::string& source) {
  return internal::Reader(source).read(parse_json_input(json_text, source));
}

Plan read_plan_file(const std::string& path) { return parse_plan(read_file(path), path); }

}  // namespace snr::mscclpp
