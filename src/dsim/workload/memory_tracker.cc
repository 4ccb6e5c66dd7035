#include "dsim/workload/memory_tracker.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string_view>

#include "common/error.h"
#include "formats/chakra/tensor_lists.h"
#include "formats/perfetto/trace_writer.h"

namespace snr::dsim {

uint32_t RankTensorsBuilder::intern(std::string_view name) {
  const auto hash_of = [](std::string_view text) { return std::hash<std::string_view>{}(text); };
  if (2 * (tensors_.tensor_count() + 1) > index_.size()) {
    // Grown at half full, and every index placed again.
    index_.assign(std::max<size_t>(64, 2 * index_.size()), kEmpty);
    const size_t mask = index_.size() - 1;
    for (uint32_t t = 0; t < tensors_.tensor_count(); ++t) {
      size_t at = hash_of(tensors_.name(t)) & mask;
      while (index_[at] != kEmpty) at = (at + 1) & mask;
      index_[at] = t;
    }
  }
  const size_t mask = index_.size() - 1;
  size_t at = hash_of(name) & mask;
  for (; index_[at] != kEmpty; at = (at + 1) & mask) {
    if (tensors_.name(index_[at]) == name) return index_[at];
  }
  if (tensors_.name_text.size() + name.size() > UINT32_MAX) throw Error("more than 4 GiB of tensor names in one rank");
  const auto tensor = static_cast<uint32_t>(tensors_.tensor_count());
  tensors_.name_text.append(name);
  tensors_.name_end.push_back(static_cast<uint32_t>(tensors_.name_text.size()));
  index_[at] = tensor;
  return tensor;
}

void RankTensorsBuilder::add_node(const ChakraProtoMsg::Node& node) {
  const auto reads = chakra::tensor_list(node, chakra::attr_name::kInputs);
  const auto writes = chakra::tensor_list(node, chakra::attr_name::kOutputs);
  if (!reads && !writes) ++tensors_.nodes_without_lists;
  tensors_.node_begin.push_back(static_cast<uint32_t>(tensors_.uses.size()));
  uint32_t read_count = 0;
  // Zero-byte tensors are not memory (and ASTRA-sim skips them entirely).
  for (const auto* list : {&reads, &writes}) {
    if (!*list) continue;
    for (const chakra::TensorRef& ref : **list) {
      if (ref.bytes == 0) continue;
      tensors_.uses.push_back(RankTensors::Use{intern(ref.name), ref.bytes});
      if (list == &reads) ++read_count;
    }
  }
  if (tensors_.uses.size() > UINT32_MAX) throw Error("more than 2^32 tensor uses in one rank's trace");
  tensors_.node_reads.push_back(read_count);
}

RankTensors RankTensorsBuilder::finish() {
  tensors_.node_begin.push_back(static_cast<uint32_t>(tensors_.uses.size()));
  index_ = {};
  tensors_.name_text.shrink_to_fit();
  return std::move(tensors_);
}

MemoryTracker::MemoryTracker(std::vector<const RankTensors*> ranks) {
  ranks_.resize(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    ranks_[r].tensors = ranks[r];
    ranks_[r].slot.assign(ranks[r]->tensor_count(), -1);
  }
}

TensorLifetime& MemoryTracker::first_naming(RankState& rank, const RankTensors::Use& use) {
  rank.slot[use.tensor] = static_cast<int32_t>(rank.lifetimes.size());
  TensorLifetime& lifetime = rank.lifetimes.emplace_back();
  lifetime.tensor = use.tensor;
  lifetime.bytes = use.bytes;
  return lifetime;
}

void MemoryTracker::node_finished(NpuId npu, uint32_t node, TimeNs start_ns, TimeNs end_ns) {
  RankState& rank = ranks_[npu];
  const RankTensors& tensors = *rank.tensors;
  const uint32_t begin = tensors.node_begin[node];
  const uint32_t first_write = begin + tensors.node_reads[node];
  const uint32_t end = tensors.node_begin[node + 1];
  // Reads first, as ASTRA-sim records them: a node that reads and writes
  // the same new tensor makes it a read before write.
  for (uint32_t u = begin; u < first_write; ++u) {
    const RankTensors::Use& use = tensors.uses[u];
    TensorLifetime* lifetime = nullptr;
    if (rank.slot[use.tensor] < 0) {
      lifetime = &first_naming(rank, use);
      ++rank.read_before_write;
    } else {
      lifetime = &rank.lifetimes[static_cast<size_t>(rank.slot[use.tensor])];
    }
    lifetime->last_reader = node;
    lifetime->last_read_end_ns = end_ns;
    ++lifetime->reads;
  }
  for (uint32_t u = first_write; u < end; ++u) {
    const RankTensors::Use& use = tensors.uses[u];
    if (rank.slot[use.tensor] >= 0) {
      ++rank.written_again;
      continue;
    }
    TensorLifetime& lifetime = first_naming(rank, use);
    lifetime.writer = node;
    lifetime.written_start_ns = start_ns;
  }
}

std::vector<MemoryProfile> MemoryTracker::take_profiles() {
  std::vector<MemoryProfile> result(ranks_.size());
  for (size_t r = 0; r < ranks_.size(); ++r) {
    RankState& rank = ranks_[r];
    MemoryProfile& profile = result[r];
    profile.tensors = std::move(rank.lifetimes);
    profile.read_before_write = rank.read_before_write;
    profile.written_again = rank.written_again;
    profile.nodes_without_lists = rank.tensors->nodes_without_lists;
    // (time, signed change): at one moment writes count before last reads,
    // and the usage recorded is the one after both.
    std::vector<std::pair<TimeNs, int64_t>> changes;
    changes.reserve(2 * profile.tensors.size());
    for (const TensorLifetime& t : profile.tensors) {
      changes.emplace_back(t.written_start_ns, static_cast<int64_t>(t.bytes));
      if (t.last_read_end_ns != kNoRead) changes.emplace_back(t.last_read_end_ns, -static_cast<int64_t>(t.bytes));
    }
    std::sort(changes.begin(), changes.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t live = 0;
    for (size_t i = 0; i < changes.size();) {
      const TimeNs at = changes[i].first;
      for (; i < changes.size() && changes[i].first == at; ++i) live += changes[i].second;
      const auto bytes = static_cast<uint64_t>(live);
      if (!profile.usage.empty() && profile.usage.back().second == bytes) continue;
      profile.usage.emplace_back(at, bytes);
      if (bytes > profile.peak_bytes) {
        profile.peak_bytes = bytes;
        profile.peak_ns = at;
      }
    }
  }
  return result;
}

std::string format_peak_memory(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  size_t unit = 0;
  double value = static_cast<double>(bytes);
  while (unit + 1 < std::size(kUnits) && bytes >= (uint64_t{1} << (10 * (unit + 1)))) ++unit;
  value /= static_cast<double>(uint64_t{1} << (10 * unit));
  return fmt::format("{:.2f} {}", value, kUnits[unit]);
}

void write_memory_trace(const MemoryProfile& profile, const RankTensors& tensors,
                        const std::vector<NodeLabel>& nodes, NpuId npu, TimeNs finish_ns,
                        const std::filesystem::path& path) {
  perfetto::TraceWriter writer(perfetto::TimeBase::nanoseconds(), perfetto::OverlapPolicy::kSpreadToLanes);
  const std::string process = fmt::format("NPU {} memory", npu);
  const perfetto::CounterId live = writer.add_counter(process, "live tensor bytes");
  const perfetto::TrackId lifetimes = writer.add_track(process, "tensor lifetimes");
  for (const auto& [at, bytes] : profile.usage) {
    writer.counter(live, static_cast<int64_t>(at), static_cast<double>(bytes));
  }
  const auto label = [&](int64_t node) {
    if (node < 0) return std::string("(none: read before any write)");
    const NodeLabel& l = nodes.at(static_cast<size_t>(node));
    return fmt::format("{} (node {})", l.name, l.chakra_id);
  };
  for (const TensorLifetime& t : profile.tensors) {
    const TimeNs end = t.last_read_end_ns == kNoRead ? std::max(finish_ns, t.written_start_ns) : t.last_read_end_ns;
    perfetto::Args args;
    args.add("bytes", t.bytes);
    args.add("written_by", label(t.writer));
    args.add("reads", t.reads);
    args.add("last_read_by", t.last_read_end_ns == kNoRead ? std::string("(never read)") : label(t.last_reader));
    writer.slice(lifetimes, static_cast<int64_t>(t.written_start_ns), static_cast<int64_t>(end - t.written_start_ns),
                 tensors.name(t.tensor), std::move(args));
  }
  if (path.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) throw Error(fmt::format("cannot create folder {}: {}", path.parent_path().string(), error.message()));
  }
  writer.write_file(path);
}

}  // namespace snr::dsim
