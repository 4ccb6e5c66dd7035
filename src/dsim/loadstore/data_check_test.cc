// The data-movement checker: correct hand-made plans pass for their
// collective; wrong data, double counting, missing or cyclic waits, stuck
// barriers and missing synchronization are reported with the ops involved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dsim/loadstore/test_util.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;
using testing::check_plan;
using testing::joined;
using testing::load_plan;
using json = nlohmann::json;

TEST(DataCheck, HandMadePlansMoveExactlyTheirCollective) {
  for (const char* name : {"allgather_put.json", "allgather_port.json", "allreduce_rres_tbg.json",
                           "allreduce_packets.json", "allreduce_switch_pipeline.json",
                           "allreduce_get_sem_gstore.json", "allreduce_packet_switch.json"}) {
    SCOPED_TRACE(name);
    const auto plan = load_plan(name);
    for (uint64_t bytes : {smallest_exact_input_bytes(plan), 4 * smallest_exact_input_bytes(plan)}) {
      const DataCheckResult result = check_plan(plan, bytes);
      EXPECT_TRUE(result.ok()) << joined(result);
      EXPECT_TRUE(result.collective_checked);
      EXPECT_GT(result.elements, 0u);
    }
  }
}

// A multicast packet store that includes the GPU's own copy writes the
// packets its own GPU already wrote and another workgroup may be reading:
// the same data and flags, so no hazard. A different value there is one.
TEST(DataCheck, RewritingAPacketWithItsOwnValueIsNoRace) {
  const auto plan = load_plan("allgather_packet_multicast_self.json");
  const DataCheckResult result = check_plan(plan);
  EXPECT_TRUE(result.ok()) << joined(result);
  const auto crossed = load_plan("allgather_packet_multicast_self.json", [](json& j) {
    // gpu 1 stores its packets into gpu 0's slot on every member.
    j["gpus"][1]["threadblocks"][0]["ops"][1]["dst_buff"][0]["index"] = 0;
  });
  EXPECT_THAT(joined(check_plan(crossed)), HasSubstr("gpu 1 threadblock 0 op 1 ('gstorepkt') overwrites scratch"));
}

TEST(DataCheck, WrongDestinationIsReportedPerChunk) {
  const auto plan = load_plan("allgather_put.json", [](json& j) {
    j["gpus"][1]["threadblocks"][0]["ops"][0]["dst_buff"][0]["index"] = 0;  // copies its chunk to the wrong place
  });
  const std::string errors = joined(check_plan(plan));
  EXPECT_THAT(errors, HasSubstr("gpu 1 output bytes [16, 32) (chunk 1): holds nothing but allgather needs {gpu 1 "
                                "input+0}"));
}

TEST(DataCheck, DoubleCountedContributionIsAnError) {
  const auto plan = load_plan("allreduce_get_sem_gstore.json", [](json& j) {
    j["gpus"][0]["threadblocks"][1]["ops"][1]["src_buff"][1] = {{"type", "i"}, {"index", 0}, {"size", 1}};
  });
  EXPECT_THAT(joined(check_plan(plan)), HasSubstr("gpu 0 threadblock 1 op 1 ('re'): reduces the contribution of gpu "
                                                  "0 input+0 twice"));
}

TEST(DataCheck, WaitWithoutSignalDeadlocks) {
  const auto plan = load_plan("allgather_put.json", [](json& j) {
    j["gpus"][1]["threadblocks"][0]["ops"].erase(2);  // gpu 1 never signals
  });
  EXPECT_THAT(joined(check_plan(plan)),
              HasSubstr("deadlock: gpu 0 threadblock 0 op 3 ('wait') waits on semaphore 'gpu 0 memory channel 0 (from "
                        "gpu 1)': no remaining op signals it (a wait without a matching signal)"));
}

TEST(DataCheck, CyclicWaitsAreNamed) {
  const auto plan = load_plan("allgather_put.json", [](json& j) {
    for (int g = 0; g < 2; ++g) std::swap(j["gpus"][g]["threadblocks"][0]["ops"][2], j["gpus"][g]["threadblocks"][0]["ops"][3]);
  });
  const std::string errors = joined(check_plan(plan));
  EXPECT_THAT(errors, HasSubstr("deadlock: gpu 0 threadblock 0 op 2 ('wait') waits on semaphore 'gpu 0 memory channel 0 "
                                "(from gpu 1)', which only blocked ops could provide (gpu 1 threadblock 0 op 3 "
                                "('signal')): a cyclic wait"));
}

TEST(DataCheck, SignalWithoutWaitLeavesADanglingSemaphore) {
  const auto plan = load_plan("allgather_put.json", [](json& j) {
    j["gpus"][0]["threadblocks"][0]["ops"].erase(3);  // gpu 0 never waits
  });
  EXPECT_THAT(joined(check_plan(plan)),
              HasSubstr("semaphore 'gpu 0 memory channel 0 (from gpu 1)' ends with 1 unconsumed signal(s)"));
}

TEST(DataCheck, BarrierThatTooFewWorkgroupsReachDeadlocks) {
  const auto plan = load_plan("allreduce_get_sem_gstore.json", [](json& j) {
    j["gpus"][1]["threadblocks"][1]["ops"].erase(3);
  });
  EXPECT_THAT(joined(check_plan(plan)),
              HasSubstr("deadlock: gpu 1 threadblock 0 op 2 ('barrier') waits at barrier 'gpu 1 barrier 0' (1 of 2 "
                        "arrived)"));
}

TEST(DataCheck, MissingSynchronizationIsFound) {
  // Without the semaphore, threadblock 1 may reduce scratch before the get filled it.
  const auto plan = load_plan("allreduce_get_sem_gstore.json", [](json& j) {
    for (int g = 0; g < 2; ++g) {
      j["gpus"][g]["threadblocks"][0]["ops"].erase(1);
      j["gpus"][g]["threadblocks"][1]["ops"].erase(0);
    }
  });
  const std::string errors = joined(check_plan(plan));
  EXPECT_THAT(errors, HasSubstr("reads scratch bytes [16, 32) of gpu 1 that nothing wrote"));
}

TEST(DataCheck, PacketReadWithoutWriterDeadlocks) {
  const auto plan = load_plan("allreduce_packets.json", [](json& j) {
    j["gpus"][1]["threadblocks"][0]["ops"] = json::array();  // gpu 1 sends no packets
  });
  EXPECT_THAT(joined(check_plan(plan)),
              HasSubstr("deadlock: gpu 0 threadblock 1 op 0 ('respkt') waits for LL packets in scratch bytes [16, 32) "
                        "of gpu 0: no remaining op writes them"));
}

}  // namespace
TEST(DataCheck, CollectiveNamesAndTypos) {
  EXPECT_EQ(checked_collective("AllReduce"), "allreduce");
  EXPECT_EQ(checked_collective("reduce_scatter"), "reducescatter");
  EXPECT_EQ(checked_collective("all-to-all"), "alltoall");
  EXPECT_EQ(checked_collective("broadcast"), "");
  EXPECT_EQ(nearest_checked_collective("allredcue"), "allreduce");
  EXPECT_EQ(nearest_checked_collective("allgathr"), "allgather");
  EXPECT_EQ(nearest_checked_collective("allreduce"), "");  // no typo
  EXPECT_EQ(nearest_checked_collective("alltoallv"), "");  // another collective
  EXPECT_EQ(nearest_checked_collective("sendrecv"), "");
}

}  // namespace snr::dsim::loadstore
