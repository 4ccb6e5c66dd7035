// The data-movement checker: correct hand-made plans pass for their
// collective; wrong data, double counting, missing or cyclic waits, stuck
// barriers and missing synchronization are reported with the ops involved.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "common/error_of.h"
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

// A one-GPU program built op by op: 16-byte granules, one name per op.
class HandBuilt {
 public:
  explicit HandBuilt(uint32_t workgroups, uint64_t granules = 64) {
    p.gpus.push_back(GpuBuffers{granules * 16, granules * 16, granules * 16, 16});
    p.kernels.push_back(Kernel{0, 0, workgroups, p.add_name("kernel")});
    for (uint32_t w = 0; w < workgroups; ++w) ops.emplace_back();
  }
  uint32_t semaphore() {
    p.semaphores.push_back(Semaphore{0, 0, p.add_name("sem " + std::to_string(p.semaphores.size()))});
    return static_cast<uint32_t>(p.semaphores.size() - 1);
  }
  void sync(uint32_t wg, OpKind kind, uint32_t sem) { ops[wg].push_back({kind, sem, {}, {}}); }
  void copy(uint32_t wg, MemRange from, MemRange to) { ops[wg].push_back({OpKind::kMemcpy, kNone, from, to}); }
  static MemRange at(Space space, uint64_t granule, uint8_t flags = 0) {
    return MemRange{0, space, flags, 0, granule * 16};
  }
  const Program& build() {
    for (uint32_t w = 0; w < ops.size(); ++w) {
      p.workgroups.push_back(Workgroup{0, static_cast<uint32_t>(p.ops.size()), static_cast<uint32_t>(ops[w].size()),
                                       1, 0});
      for (uint32_t i = 0; i < ops[w].size(); ++i) {
        const Op& o = ops[w][i];
        GpuOp op;
        op.kind = o.kind;
        op.sync = o.sync;
        op.bytes = o.kind == OpKind::kMemcpy ? 16 : 0;
        const OpOrigin origin{w, i, kNone, 0, p.add_name(o.kind == OpKind::kMemcpy ? "copy" : "sync")};
        p.add_op(op, o.kind == OpKind::kMemcpy ? std::vector<MemRange>{o.from, o.to} : std::vector<MemRange>{},
                 origin);
      }
    }
    return p;
  }

 private:
  struct Op {
    OpKind kind;
    uint32_t sync;
    MemRange from, to;
  };
  Program p;
  std::vector<std::vector<Op>> ops;
};

DataCheckResult check_sync_only(const Program& program) { return check_data_movement(program, DataCheckOptions{}); }

// Threadblock 0 publishes twice with a write (its op 1) in between and
// nothing joined into its clock, so both publications share one snapshot
// of it; threadblock 1 waits for the second and reads what op 1 wrote,
// threadblock 2 waits for the first only and, with `early_read`, reads it
// too: only that read is a race.
void expect_race_only_from_the_early_reader(const std::function<void(HandBuilt&, bool early_read)>& build) {
  for (const bool early_read : {false, true}) {
    SCOPED_TRACE(early_read);
    HandBuilt b(3);
    build(b, early_read);
    const DataCheckResult result = check_sync_only(b.build());
    if (early_read) {
      EXPECT_THAT(joined(result), HasSubstr("gpu 0 threadblock 2 op 1 ('copy') reads scratch bytes [16, 32) of gpu 0 "
                                            "that gpu 0 threadblock 0 op 1 ('copy') writes, with no synchronization"));
    } else {
      EXPECT_TRUE(result.ok()) << joined(result);
    }
  }
}

TEST(DataCheck, WhatASignalPublishesIsTheSignallersClockAtTheSignal) {
  expect_race_only_from_the_early_reader([](HandBuilt& b, bool early_read) {
    const uint32_t first = b.semaphore(), second = b.semaphore();
    b.sync(0, OpKind::kSemaphoreRelease, first);
    b.copy(0, HandBuilt::at(Space::kInput, 1), HandBuilt::at(Space::kScratch, 1));
    b.sync(0, OpKind::kSemaphoreRelease, second);
    b.sync(1, OpKind::kSemaphoreAcquire, second);
    b.copy(1, HandBuilt::at(Space::kScratch, 1), HandBuilt::at(Space::kOutput, 1));
    b.sync(2, OpKind::kSemaphoreAcquire, first);
    if (early_read) b.copy(2, HandBuilt::at(Space::kScratch, 1), HandBuilt::at(Space::kOutput, 2));
  });
}

// The same with LL packets: a packet's flag publishes its writer's clock
// at that store.
TEST(DataCheck, WhatAPacketPublishesIsTheWritersClockAtTheStore) {
  expect_race_only_from_the_early_reader([](HandBuilt& b, bool early_read) {
    b.copy(0, HandBuilt::at(Space::kInput, 0), HandBuilt::at(Space::kScratch, 0, MemRange::kPacket));
    b.copy(0, HandBuilt::at(Space::kInput, 1), HandBuilt::at(Space::kScratch, 1));
    b.copy(0, HandBuilt::at(Space::kInput, 2), HandBuilt::at(Space::kScratch, 2, MemRange::kPacket));
    b.copy(1, HandBuilt::at(Space::kScratch, 2, MemRange::kPacket), HandBuilt::at(Space::kOutput, 2));
    b.copy(1, HandBuilt::at(Space::kScratch, 1), HandBuilt::at(Space::kOutput, 1));
    b.copy(2, HandBuilt::at(Space::kScratch, 0, MemRange::kPacket), HandBuilt::at(Space::kOutput, 0));
    if (early_read) b.copy(2, HandBuilt::at(Space::kScratch, 1), HandBuilt::at(Space::kOutput, 3));
  });
}

// Thousands of workgroups with tens of thousands of semaphores, as
// MSCCLang's all-pairs programs for 64 GPUs have (2,176 threadblocks,
// 67,648 semaphores): a semaphore holds a clock only between its signal
// and its wait, so the check runs; dense per-semaphore clocks would need
// workgroups x semaphores components (more than 2^26 here).
TEST(DataCheck, ManySemaphoresOfManyWorkgroupsAreTracked) {
  constexpr uint32_t kPairs = 1100, kHandoffs = 26;
  HandBuilt b(2 * kPairs, uint64_t{kPairs} * kHandoffs);
  for (uint32_t k = 0; k < kPairs; ++k) {
    for (uint32_t j = 0; j < kHandoffs; ++j) {
      const uint64_t granule = uint64_t{k} * kHandoffs + j;
      const uint32_t sem = b.semaphore();
      b.copy(2 * k, HandBuilt::at(Space::kInput, granule), HandBuilt::at(Space::kScratch, granule));
      b.sync(2 * k, OpKind::kSemaphoreRelease, sem);
      b.sync(2 * k + 1, OpKind::kSemaphoreAcquire, sem);
      b.copy(2 * k + 1, HandBuilt::at(Space::kScratch, granule), HandBuilt::at(Space::kOutput, granule));
    }
  }
  const Program& program = b.build();
  const uint64_t workgroups = program.workgroups.size();
  ASSERT_GT(workgroups * (workgroups + program.semaphores.size()), uint64_t{1} << 26);
  const DataCheckResult result = check_sync_only(program);
  EXPECT_TRUE(result.ok()) << joined(result);
  EXPECT_EQ(result.executed_ops, program.ops.size());
}

// One interleaving's clocks live at a time: 8,200 workgroups (67 M clock
// components, over the 2^26 that three copies at once were held to) are
// checked; 12,000 (144 M) are refused with the count.
TEST(DataCheck, WorkgroupClocksOfOneInterleavingAtATime) {
  HandBuilt wide(8200);
  const uint32_t sem = wide.semaphore();
  wide.copy(0, HandBuilt::at(Space::kInput, 0), HandBuilt::at(Space::kScratch, 0));
  wide.sync(0, OpKind::kSemaphoreRelease, sem);
  wide.sync(8199, OpKind::kSemaphoreAcquire, sem);
  wide.copy(8199, HandBuilt::at(Space::kScratch, 0), HandBuilt::at(Space::kOutput, 0));
  const DataCheckResult result = check_sync_only(wide.build());
  EXPECT_TRUE(result.ok()) << joined(result);
  EXPECT_EQ(result.executed_ops, 4u);
  HandBuilt wider(12000);
  EXPECT_THAT(snr::testing::error_of([&] { (void)check_sync_only(wider.build()); }),
              HasSubstr("12000 workgroups and 0 barriers are too many to track"));
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
