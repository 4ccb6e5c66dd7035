// ASTRA-sim's local-memory tracker (system configuration "track-local-mem":
// 1): which tensors each NPU holds over time, from the tensors every node
// names in its "inputs" and "outputs" attributes (formats/chakra/
// tensor_lists.h), and the peak.
//
// The rules are ASTRA-sim's, so that peaks agree: a tensor is live from the
// start of the node that writes it to the end of the last node that reads
// it (reads are recorded as nodes finish, so the last read is the one that
// finishes last); a tensor never read stays live to the end; a tensor read
// before any node wrote it is live from time 0; the first node to name a
// tensor fixes its size, and a later write of it changes nothing (ASTRA-sim
// asserts there; here it is counted); zero-byte tensors are ignored. At one
// moment, tensors written are added before those read for the last time are
// removed. Every node is tracked, whatever its kind, with the times the
// workload layer issued and finished it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dsim/core/event.h"
#include "formats/chakra/et_def.pb.h"

namespace snr::dsim {

// The tensors of one rank's nodes, names interned per rank.
struct RankTensors {
  struct Use {
    uint32_t tensor = 0;
    uint64_t bytes = 0;
  };
  // The names one after another (one allocation per rank, not one per
  // tensor: a 128-rank LLM trace names a million); tensor i's ends at
  // name_end[i].
  std::string name_text;
  std::vector<uint32_t> name_end;
  std::vector<Use> uses;             // node by node: its reads, then its writes
  std::vector<uint32_t> node_begin;  // node n's uses: [node_begin[n], node_begin[n + 1])
  std::vector<uint32_t> node_reads;  // how many of node n's uses are reads
  uint64_t nodes_without_lists = 0;  // nodes with neither "inputs" nor "outputs"

  [[nodiscard]] size_t tensor_count() const { return name_end.size(); }
  [[nodiscard]] std::string_view name(uint32_t tensor) const {
    const uint32_t begin = tensor == 0 ? 0 : name_end[tensor - 1];
    return std::string_view(name_text).substr(begin, name_end[tensor] - begin);
  }
};

// Builds RankTensors from a rank's nodes, given in graph order.
class RankTensorsBuilder {
 public:
  // Throws snr::Error (from the attribute reader) for a malformed list.
  void add_node(const ChakraProtoMsg::Node& node);
  [[nodiscard]] RankTensors finish();

 private:
  uint32_t intern(std::string_view name);
  RankTensors tensors_;
  // Open addressing over tensor indices (kEmpty: free), compared by name.
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<uint32_t> index_;
};

inline constexpr TimeNs kNoRead = ~TimeNs{0};

// One tensor of one NPU: who wrote it and when, and when it was last read.
struct TensorLifetime {
  uint32_t tensor = 0;  // index into RankTensors (RankTensors::name)
  uint64_t bytes = 0;
  int64_t writer = -1;  // node index; -1: read before any write (live from 0)
  TimeNs written_start_ns = 0;
  int64_t last_reader = -1;
  TimeNs last_read_end_ns = kNoRead;  // kNoRead: never read, live to the end
  uint64_t reads = 0;
};

struct MemoryProfile {
  std::vector<TensorLifetime> tensors;  // in the order the trace first named them
  // Live bytes after each moment at which they change, in time order.
  std::vector<std::pair<TimeNs, uint64_t>> usage;
  uint64_t peak_bytes = 0;
  TimeNs peak_ns = 0;  // the first moment at the peak
  uint64_t read_before_write = 0;  // tensors read before any node wrote them
  uint64_t written_again = 0;      // writes of a tensor already named (the first naming stays)
  uint64_t nodes_without_lists = 0;
};

class MemoryTracker {
 public:
  // One RankTensors per NPU; they must outlive the tracker.
  explicit MemoryTracker(std::vector<const RankTensors*> ranks);
  // Records node `node` of `npu`, issued at start_ns and finished at end_ns.
  void node_finished(NpuId npu, uint32_t node, TimeNs start_ns, TimeNs end_ns);
  // The profiles, per NPU; the lifetimes move into them (once, after the
  // run: a large job has a million).
  [[nodiscard]] std::vector<MemoryProfile> take_profiles();

 private:
  struct RankState {
    const RankTensors* tensors = nullptr;
    std::vector<int32_t> slot;  // by tensor index: position in `lifetimes`, -1 until first named
    std::vector<TensorLifetime> lifetimes;
    uint64_t read_before_write = 0;
    uint64_t written_again = 0;
  };
  TensorLifetime& first_naming(RankState& rank, const RankTensors::Use& use);
  std::vector<RankState> ranks_;
};

// ASTRA-sim's line for a peak: "peak memory usage: 12.50 MB" takes bytes to
// B, KB, MB, GB or TB (powers of 1024) with two decimals.
std::string format_peak_memory(uint64_t bytes);

// A Perfetto (Chrome JSON) trace of one NPU's profile: a counter of live
// bytes and a slice per tensor over its lifetime (named by the tensor, with
// its size, writer and last reader), lifetimes without a last read ending at
// `finish_ns`. `node_name` gives a node's name and Chakra id for the args.
struct NodeLabel {
  std::string name;
  uint64_t chakra_id = 0;
};
void write_memory_trace(const MemoryProfile& profile, const RankTensors& tensors,
                        const std::vector<NodeLabel>& nodes, NpuId npu, TimeNs finish_ns,
                        const std::filesystem::path& path);

}  // namespace snr::dsim
