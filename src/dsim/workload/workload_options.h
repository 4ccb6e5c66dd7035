// How `snr sim` reads a trace set into per-NPU graphs beyond the traces
// themselves: ASTRA-sim's --compute-scale / --comm-scale, what to do with a
// dependency on a node that is not in the trace, and the check that the
// trace set has exactly one file per NPU of the network.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace snr::dsim {

struct RankGraph;  // workload.h

// A node that depends on an id no node of its trace has. Chakra's own
// feeder-test trace has such nodes (its trace was cut from a longer run).
enum class DanglingDependencies : uint8_t {
  kError,   // the default: an error naming the file, the node and the missing id
  kIgnore,  // the dependency is dropped (counted) and the node runs without it
};
// "error" / "ignore"; throws snr::Error listing both.
DanglingDependencies parse_dangling_dependencies(std::string_view text);

// Valid ranges of the scales (finite; the ends included).
inline constexpr double kMaxScale = 1e6;
// Longest compute node and largest message after scaling: 2^60 ns (about
// 36 years) and 2^50 bytes (1 PiB). Within these, every sum the simulator
// forms (start + duration, bytes / slowest bandwidth + latency) stays far
// below 2^64 ns.
inline constexpr uint64_t kMaxNodeNs = uint64_t{1} << 60;
inline constexpr uint64_t kMaxMessageBytes = uint64_t{1} << 50;

struct WorkloadScales {
  double compute = 1;  // --compute-scale: multiplies every COMP node's duration, 0 .. 1e6
  double comm = 1;     // --comm-scale: multiplies every communication size, (0, 1e6]
};
// Throws snr::Error naming the option when a scale is out of its range.
void check_workload_scales(const WorkloadScales& scales);

// Multiplies compute durations and communication sizes (results truncated
// to whole ns / bytes; a scale of 1 changes nothing). Throws snr::Error
// naming the NPU and node when a scaled value leaves its range.
void apply_workload_scales(std::vector<RankGraph>& graphs, const WorkloadScales& scales);

// The checked conversions every duration and size of a node goes through.
// `what` names the value in the error ("node 12: duration").
uint64_t checked_node_ns(double ns, std::string_view what);
uint64_t checked_message_bytes(double bytes, std::string_view what);

// The trace set PREFIX.0.et .. PREFIX.(N-1).et must have exactly `npus`
// files (the product of the network's npus_count): fewer would leave NPUs
// without a trace and more would silently simulate only the first ranks.
// Throws snr::Error naming the prefix, both counts and the first extra or
// missing file.
void check_trace_set_size(const std::filesystem::path& prefix, uint64_t npus);

}  // namespace snr::dsim
