#include "dsim/workload/workload_options.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"
#include "dsim/workload/workload.h"
#include "formats/chakra/rank_files.h"

namespace snr::dsim {

DanglingDependencies parse_dangling_dependencies(std::string_view text) {
  if (text == "error") return DanglingDependencies::kError;
  if (text == "ignore") return DanglingDependencies::kIgnore;
  throw Error(fmt::format("--dangling-dependencies '{}': expected 'error' (the default) or 'ignore'", text));
}

void check_workload_scales(const WorkloadScales& scales) {
  if (!std::isfinite(scales.compute) || scales.compute < 0 || scales.compute > kMaxScale) {
    throw Error(fmt::format("--compute-scale {} is out of range: valid 0 .. {:g}", scales.compute, kMaxScale));
  }
  if (!std::isfinite(scales.comm) || scales.comm <= 0 || scales.comm > kMaxScale) {
    throw Error(fmt::format("--comm-scale {} is out of range: valid above 0 up to {:g} (a message needs a size)",
                            scales.comm, kMaxScale));
  }
}

uint64_t checked_node_ns(double ns, std::string_view what) {
  if (!(ns >= 0) || ns > static_cast<double>(kMaxNodeNs)) {
    throw Error(fmt::format("{} of {:g} ns is out of range: valid 0 .. 2^60 ns (about 36 years)", what, ns));
  }
  return static_cast<uint64_t>(ns);
}

uint64_t checked_message_bytes(double bytes, std::string_view what) {
  if (!(bytes >= 0) || bytes > static_cast<double>(kMaxMessageBytes)) {
    throw Error(fmt::format("{} of {:g} bytes is out of range: valid 0 .. 2^50 bytes (1 PiB)", what, bytes));
  }
  return static_cast<uint64_t>(bytes);
}

void apply_workload_scales(std::vector<RankGraph>& graphs, const WorkloadScales& scales) {
  check_workload_scales(scales);
  if (scales.compute == 1 && scales.comm == 1) return;
  for (size_t npu = 0; npu < graphs.size(); ++npu) {
    for (WorkNode& node : graphs[npu].nodes) {
      if (node.action == NodeAction::kCompute && scales.compute != 1) {
        node.duration_ns = checked_node_ns(static_cast<double>(node.duration_ns) * scales.compute,
                                           fmt::format("NPU {} node {}: duration after --compute-scale", npu,
                                                       node.chakra_id));
      }
      if (node.node_class == NodeClass::kGpuComm && scales.comm != 1) {
        const uint64_t scaled = checked_message_bytes(
            static_cast<double>(node.comm_bytes) * scales.comm,
            fmt::format("NPU {} node {}: size after --comm-scale", npu, node.chakra_id));
        if (scaled == 0 && node.comm_bytes > 0) {
          throw Error(fmt::format("NPU {} node {}: {} bytes times --comm-scale {:g} is less than one byte", npu,
                                  node.chakra_id, node.comm_bytes, scales.comm));
        }
        node.comm_bytes = scaled;
      }
    }
  }
}

void check_trace_set_size(const std::filesystem::path& prefix, uint64_t npus) {
  const auto found = chakra::discover_rank_traces(prefix);
  uint64_t contiguous = 0;
  while (contiguous < found.size() && found[contiguous].rank == contiguous) ++contiguous;
  if (contiguous < npus) {
    throw Error(fmt::format("trace set {}: {} rank file(s) ({}.0.et .. {}.N.et without gaps), but the network "
                            "configuration has {} NPUs (the product of npus_count); missing: {}",
                            prefix.string(), contiguous, prefix.filename().string(), prefix.filename().string(),
                            npus, chakra::rank_trace_path(prefix, contiguous).string()));
  }
  if (found.size() > npus) {
    throw Error(fmt::format("trace set {}: {} rank files, but the network configuration has {} NPUs (the product "
                            "of npus_count); {} has no NPU to run on. Give a network of {} NPUs, or a trace set "
                            "of {} ranks",
                            prefix.string(), found.size(), npus, found[npus].path.string(), found.size(), npus));
  }
}

}  // namespace snr::dsim
