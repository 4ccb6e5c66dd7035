// line_requests (program.h), the size a run is refused by, counts the
// cache-line requests the GPU model then issues.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <utility>

#include "dsim/loadstore/generated/plan_check_for_tests.h"
#include "dsim/loadstore/generated/plan_generator.h"
#include "dsim/loadstore/generated/plan_run_for_tests.h"

namespace snr::dsim::loadstore {
namespace {

TEST(LineRequests, AreWhatTheModelIssues) {
  const gpu::GpuConfig config;
  for (const auto& [name, collective] :
       {std::pair{"ring", kAllReduce}, std::pair{"direct", kAllToAll}, std::pair{"ring", kAllGather},
        std::pair{"halving-doubling", kReduceScatter}}) {
    for (Protocol protocol : {Protocol::kSimple, Protocol::kLL}) {
      for (Transfer transfer : {Transfer::kPut, Transfer::kGet}) {
        const PlanAlgorithm& algorithm = find_plan_algorithm(name);
        if (!algorithm.supports(transfer, protocol)) continue;
        SCOPED_TRACE(fmt::format("{} {} {} {}", name, collective, protocol_name(protocol), transfer_name(transfer)));
        // Slices of whole lines and of a line and a bit.
        for (uint64_t buffer : {uint64_t{4} * 4096, uint64_t{4} * (4096 + 52)}) {
          const Program program =
              generate_collective_plan(algorithm, plan_options(collective, 4, 3, buffer, transfer, protocol));
          EXPECT_EQ(line_requests(program, config.cache_line_bytes), run_generated_plan(program).requests) << buffer;
        }
      }
    }
  }
}

}  // namespace
}  // namespace snr::dsim::loadstore
