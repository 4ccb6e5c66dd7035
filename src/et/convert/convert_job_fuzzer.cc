// Fuzz entry point for `snr et convert` of a job: one host trace (plain or
// linked) read, converted as rank 0 and as rank 1 (communication records,
// c10d ops, process-group entries), and the two graphs' process groups
// derived across ranks. Only snr::Error is an acceptable failure, and every
// group written must list distinct, non-negative ranks.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "et/convert/job_process_groups.h"
#include "et/convert/pytorch_to_chakra.h"
#include "formats/pytorch/host_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto trace = snr::pytorch::parse_host_trace_text(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-host");
    std::vector<snr::et_convert::ConvertedGraph> graphs;
    for (int64_t rank = 0; rank < 2; ++rank) {
      snr::et_convert::PytorchConvertOptions options;
      options.rank = rank;
      snr::et_convert::PytorchConvertStats stats;
      graphs.push_back(snr::et_convert::convert_pytorch_trace(trace, options, stats));
      (void)snr::et_convert::describe(stats);
    }
    std::vector<snr::et_convert::JobRank> ranks = {{&trace, &graphs[0]}, {&trace, &graphs[1]}};
    const auto groups = snr::et_convert::unify_process_groups(ranks);
    for (const auto& group : groups.groups) {
      const std::set<int64_t> distinct(group.ranks.begin(), group.ranks.end());
      if (distinct.size() != group.ranks.size() || (!distinct.empty() && *distinct.begin() < 0)) __builtin_trap();
    }
    (void)snr::et_convert::job_comm_groups_json(groups);
  } catch (const snr::Error&) {
  }
  return 0;
}
