// Reader tests on hand-made plans (testdata/*.json): each op class reads,
// and each kind of malformed input fails with a message naming where.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "formats/mscclpp/plan_reader.h"

namespace snr::mscclpp {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

std::string testdata(const std::string& name) { return std::string(SNR_MSCCLPP_TESTDATA) + "/" + name; }

json load(const std::string& name) {
  std::ifstream in(testdata(name));
  return json::parse(in);
}

std::string error_of_text(const std::string& text) {
  try {
    parse_plan(text, "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string error_of(const json& plan) { return error_of_text(plan.dump()); }

TEST(MscclppReader, ReadsPutSignalWait) {
  const Plan plan = read_plan_file(testdata("allgather_put.json"));
  EXPECT_EQ(plan.collective, "allgather");
  EXPECT_EQ(plan.variant, Plan::Variant::kCurrent);
  ASSERT_EQ(plan.gpus.size(), 2u);
  const Gpu& gpu = plan.gpus[1];
  ASSERT_EQ(gpu.memory_channels.size(), 1u);
  EXPECT_EQ(gpu.memory_channels[0].peer, 0u);
  const Op& put = gpu.threadblocks[0].ops[1];
  EXPECT_EQ(put.type, OpType::kPut);
  ASSERT_EQ(put.dst.size(), 1u);
  EXPECT_EQ(put.dst[0].kind, BufferRef::Kind::kRemote);
  EXPECT_EQ(put.dst[0].rank, 0u);
  EXPECT_EQ(put.dst[0].type, BufferType::kOutput);
  EXPECT_EQ(put.dst[0].index, 1u);
  EXPECT_EQ(gpu.threadblocks[0].ops[2].channels, std::vector<uint32_t>{0});
}

TEST(MscclppReader, ResolvesChannelsThroughTheThreadblockList) {
  const Plan plan = read_plan_file(testdata("allreduce_rres_tbg.json"));
  const Gpu& gpu = plan.gpus[0];
  ASSERT_EQ(gpu.memory_channels.size(), 2u);
  EXPECT_EQ(gpu.memory_channels[1].ordinal, 1u);  // second channel to the same peer
  const Threadblock& tb1 = gpu.threadblocks[1];
  EXPECT_EQ(tb1.ops[0].channels, std::vector<uint32_t>{1});  // op id 0 -> threadblock's channel 1
  const Op& rres = tb1.ops[3];
  EXPECT_EQ(rres.type, OpType::kReadReduceSend);
  EXPECT_EQ(rres.reduce, ReduceKind::kSum);
  EXPECT_EQ(rres.tbg.tb_id, 1u);
  EXPECT_EQ(rres.tbg.size, 2u);
  EXPECT_EQ(rres.dst[1].type, BufferType::kOutput);  // buffer_id 1 -> remote buffer 1
}

TEST(MscclppReader, ReadsPacketSwitchPipelineSemaphoreAndBarrierOps) {
  const Plan packets = read_plan_file(testdata("allreduce_packets.json"));
  EXPECT_EQ(packets.protocol, Protocol::kLL);
  EXPECT_EQ(packets.gpus[0].threadblocks[1].ops[0].type, OpType::kReduceSendPackets);
  const Plan nvls = read_plan_file(testdata("allreduce_switch_pipeline.json"));
  const Op& pipeline = nvls.gpus[0].threadblocks[0].ops[3];
  ASSERT_EQ(pipeline.type, OpType::kPipeline);
  EXPECT_EQ(pipeline.unit_size_bytes, 16u);
  ASSERT_EQ(pipeline.body.size(), 1u);
  EXPECT_EQ(pipeline.body[0].src[0].kind, BufferRef::Kind::kSwitch);
  EXPECT_EQ(nvls.gpus[0].switch_channels[0].ranks, (std::vector<uint32_t>{0, 1}));
  const Plan sem = read_plan_file(testdata("allreduce_get_sem_gstore.json"));
  EXPECT_EQ(sem.gpus[1].semaphores, std::vector<uint32_t>{0});
  EXPECT_EQ(sem.gpus[1].threadblocks[0].ops[2].barrier_threadblocks, 2u);
  EXPECT_EQ(sem.gpus[1].threadblocks[1].ops[2].type, OpType::kMultiStore);
  const Plan pkt = read_plan_file(testdata("allreduce_packet_switch.json"));
  EXPECT_EQ(pkt.gpus[0].threadblocks[1].ops[0].type, OpType::kReduceCopyPackets);
  EXPECT_EQ(pkt.gpus[0].threadblocks[1].ops[1].type, OpType::kMultiStorePackets);
  EXPECT_EQ(pkt.gpus[1].threadblocks[1].ops[0].type, OpType::kReducePackets);
  const Plan port = read_plan_file(testdata("allgather_port.json"));
  EXPECT_EQ(port.gpus[0].threadblocks[0].ops[1].type, OpType::kPutWithSignalAndFlush);
}

TEST(MscclppReader, UnknownOpNamesGpuThreadblockAndIndex) {
  json plan = load("allgather_put.json");
  plan["gpus"][1]["threadblocks"][0]["ops"][3]["name"] = "teleport";
  EXPECT_THAT(error_of(plan), HasSubstr("t.json: gpu 1 threadblock 0 op 3: unknown op 'teleport'"));
}

TEST(MscclppReader, UnknownKeysAreErrors) {
  json plan = load("allgather_put.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][0]["speed"] = 3;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 0 threadblock 0 op 0 ('copy'): unknown key 'speed'"));
  plan = load("allgather_put.json");
  plan["colective"] = "x";
  EXPECT_THAT(error_of(plan), HasSubstr("plan: unknown key 'colective'"));
}

// MSCCL++'s DSL names the owning GPU on a switch op's local operand.
TEST(MscclppReader, RankOfALocalBufferIsTheExecutingGpu) {
  json plan = load("allgather_packet_multicast_self.json");
  EXPECT_EQ(parse_plan(plan.dump(), "t.json").gpus[1].threadblocks[0].ops[1].src[0].rank, 1u);
  plan["gpus"][1]["threadblocks"][0]["ops"][1]["src_buff"][0]["rank"] = 0;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 1 threadblock 0 op 1 ('gstorepkt') src_buff[0]: 'rank' is 0 but a "
                                        "buffer with 'type' is gpu 1's own"));
  plan = load("allgather_packet_multicast_self.json");
  plan["gpus"][1]["threadblocks"][0]["ops"][1]["dst_buff"][0]["rank"] = 1;
  EXPECT_THAT(error_of(plan), HasSubstr("dst_buff[0]: 'rank' goes only with 'type'"));
}

TEST(MscclppReader, BadChunkIndexIsAnError) {
  json plan = load("allgather_put.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][0]["dst_buff"][0]["index"] = 2;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 0 threadblock 0 op 0 ('copy') dst_buff[0]: chunks [2, 3) of buffer 'o' "
                                        "on gpu 0 are out of range: it has 2 chunks"));
}

TEST(MscclppReader, DanglingReferencesAreErrors) {
  json plan = load("allgather_put.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][1]["dst_buff"][0]["buffer_id"] = 1;
  EXPECT_THAT(error_of(plan), HasSubstr("op 1 ('put') dst_buff[0]: buffer_id 1 is dangling"));
  plan = load("allgather_put.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][2]["channel_ids"][0] = 4;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 0 threadblock 0 op 2 ('signal'): channel id 4 is dangling"));
  plan = load("allgather_put.json");
  plan["gpus"][0]["threadblocks"][0]["channels"][0]["channel_ids"][0] = 3;
  EXPECT_THAT(error_of(plan), HasSubstr("channel id 3 is out of range: gpu 0 has 1 memory channels"));
  plan = load("allreduce_get_sem_gstore.json");
  plan["gpus"][0]["threadblocks"][1]["ops"][0]["semaphore_ids"][0] = 1;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 0 threadblock 1 op 0 ('sem_acquire'): semaphore id 1 is dangling"));
  plan = load("allreduce_switch_pipeline.json");
  plan["gpus"][1]["threadblocks"][0]["ops"][3]["ops"][0]["src_buff"][0]["switch_channel_id"] = 2;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 1 threadblock 0 op 3.0 ('glres') src_buff[0]: switch_channel_id 2 is "
                                        "dangling"));
}

TEST(MscclppReader, OperandShapesAreChecked) {
  json plan = load("allgather_put.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][1]["dst_buff"][0] = {{"type", "o"}, {"index", 1}, {"size", 1}};
  EXPECT_THAT(error_of(plan), HasSubstr("op 1 ('put'): operands do not fit the op: expected n local sources and n "
                                        "remote destinations"));
  plan = load("allreduce_packets.json");
  plan["gpus"][0]["threadblocks"][1]["ops"][1]["src_buff"][0] = {{"type", "i"}, {"index", 0}, {"size", 1}};
  EXPECT_THAT(error_of(plan), HasSubstr("op 1 ('upkt'): the packet source must be a scratch buffer"));
  plan = load("allreduce_get_sem_gstore.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][0]["channel_ids"][0] = 0;
  plan["gpus"][0]["channels"][0]["connected_to"][0] = 1;
  plan["gpus"][0]["remote_buffers"][0]["rank"] = 0;
  EXPECT_THAT(error_of(plan), HasSubstr("channel 0 leads to gpu 1 but remote operand 0 is on gpu 0"));
}

TEST(MscclppReader, PacketOpsCannotBePipelined) {
  json plan = load("allreduce_switch_pipeline.json");
  plan["gpus"][0]["threadblocks"][0]["ops"][3]["ops"][0] = {
      {"name", "cpkt"}, {"src_buff", {{{"type", "i"}, {"index", 0}, {"size", 1}}}},
      {"dst_buff", {{{"type", "s"}, {"index", 0}, {"size", 1}}}}};
  plan["gpus"][0]["scratch_chunks"] = 2;
  EXPECT_THAT(error_of(plan), HasSubstr("op 3.0 ('cpkt'): packet ops cannot run inside a pipeline"));
}

// A plan that only synchronizes (MSCCL++'s DSL writes such tests) has GPUs
// without input or output chunks; a buffer operand on such a GPU has no size.
TEST(MscclppReader, GpusWithoutChunksOnlySynchronize) {
  json plan = load("signal_wait_only.json");
  EXPECT_EQ(parse_plan(plan.dump(), "t.json").gpus[1].threadblocks[0].ops.size(), 3u);
  plan["gpus"][1]["scratch_chunks"] = 1;
  plan["gpus"][1]["threadblocks"][1]["ops"][0] = {{"name", "copy"},
                                                   {"src_buff", {{{"type", "s"}, {"index", 0}, {"size", 1}}}},
                                                   {"dst_buff", {{{"type", "s"}, {"index", 0}, {"size", 1}}}}};
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 1 threadblock 1 op 0 ('copy') src_buff[0]: gpu 1 has neither input nor "
                                        "output chunks, so its 's' chunks have no size"));
}

TEST(MscclppReader, WrongTypesAndRangesAreErrors) {
  json plan = load("allgather_put.json");
  plan["gpus"][0]["input_chunks"] = -1;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 0: 'input_chunks' must be a non-negative integer, got -1"));
  plan = load("allgather_put.json");
  plan["protocol"] = "LL128";
  EXPECT_THAT(error_of(plan), HasSubstr("'protocol' must be \"Simple\" or \"LL\""));
  plan = load("allgather_put.json");
  plan["gpus"][1]["id"] = 0;
  EXPECT_THAT(error_of(plan), HasSubstr("gpu 1: 'id' is 0"));
  EXPECT_THAT(error_of_text("[1, 2"), HasSubstr("t.json: line 1, column 6 (byte 5)"));
  EXPECT_THAT(error_of(json::parse("{}")), HasSubstr("plan: missing key 'name'"));
}

TEST(MscclppReader, LegacyCamelCaseSchemaIsRejectedWithTheReason) {
  json plan = load("allgather_put.json");
  plan["gpus"][0]["inputChunks"] = 1;
  EXPECT_THAT(error_of(plan), HasSubstr("pre-August-2025 schema (GPU key 'inputChunks')"));
}

}  // namespace
}  // namespace snr::mscclpp
