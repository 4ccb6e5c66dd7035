#include "et/convert/comm_record.h"

#include <gtest/gtest.h>

namespace snr::et_convert {
namespace {

TEST(CommRecord, ClassifiesOperationNames) {
  CollectiveType type = CollectiveType::kBarrier;
  EXPECT_EQ(classify_comm_name("all_gather", type), CommKind::kCollective);
  EXPECT_EQ(type, CollectiveType::kAllGather);
  EXPECT_EQ(classify_comm_name("_allgather_base", type), CommKind::kCollective);
  EXPECT_EQ(type, CollectiveType::kAllGather);
  EXPECT_EQ(classify_comm_name("allreduce_coalesced", type), CommKind::kCollective);
  EXPECT_EQ(type, CollectiveType::kAllReduce);
  EXPECT_EQ(classify_comm_name("reduce_scatter_tensor_coalesced", type), CommKind::kCollective);
  EXPECT_EQ(type, CollectiveType::kReduceScatter);
  EXPECT_EQ(classify_comm_name("all_to_all", type), CommKind::kCollective);
  EXPECT_EQ(type, CollectiveType::kAllToAll);
  EXPECT_EQ(classify_comm_name("broadcast", type), CommKind::kCollective);
  EXPECT_EQ(type, CollectiveType::kBroadcast);
  EXPECT_EQ(classify_comm_name("send", type), CommKind::kSend);
  EXPECT_EQ(classify_comm_name("recv", type), CommKind::kRecv);
  EXPECT_EQ(classify_comm_name("wait", type), CommKind::kWait);
  EXPECT_EQ(classify_comm_name("frobnicate", type), CommKind::kUnknown);
}

TEST(CommRecord, ClassifiesKernelNames) {
  CommKind kind = CommKind::kUnknown;
  CollectiveType type = CollectiveType::kBarrier;
  EXPECT_TRUE(classify_comm_kernel("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL", kind, type));
  EXPECT_EQ(type, CollectiveType::kReduceScatter);
  EXPECT_TRUE(classify_comm_kernel("ncclKernel_AllReduce_RING_LL_Sum_float", kind, type));
  EXPECT_EQ(type, CollectiveType::kAllReduce);
  EXPECT_TRUE(classify_comm_kernel("ncclDevKernel_SendRecv", kind, type));
  EXPECT_EQ(kind, CommKind::kSend);
  EXPECT_FALSE(classify_comm_kernel("volta_sgemm_64x64_tn", kind, type));
}

pytorch::HostNode record(std::vector<pytorch::HostValue> inputs) {
  pytorch::HostNode node;
  node.name = "record_param_comms";
  node.inputs.assign(inputs.begin(), inputs.end());
  return node;
}

TEST(CommRecord, ReadsOlderLayoutAndResolvesGroup) {
  pytorch::HostTrace trace;
  trace.process_groups.push_back({"0", "cuda:nccl", 82149104, {}, 2});
  auto node = record({{"GenericList[Tensor(float)]", R"([[1,2,0,1,4,"cuda:0"]])", "[[1]]", "null"},
                      {"Int", "12", "null", "null"},
                      {"Int", "82149104", "null", "null"},
                      {"Int", "0", "null", "null"},
                      {"String", R"("all_gather")", "null", "null"},
                      {"GenericList[]", "[]", "null", "null"},
                      {"GenericList[]", "[]", "null", "null"},
                      {"Int", "2", "null", "null"}});
  const auto r = read_comm_record(node, trace);
  EXPECT_EQ(r.kind, CommKind::kCollective);
  EXPECT_EQ(r.collective, CollectiveType::kAllGather);
  EXPECT_EQ(r.seq, 12);
  EXPECT_EQ(r.pg_name, "0");
  EXPECT_EQ(r.input_bytes, 4u);
}

TEST(CommRecord, ReadsNewerLayoutWithGroupTuple) {
  pytorch::HostTrace trace;
  const auto node = record({{"GenericList[Tensor(c10::BFloat16)]", "[]", "null", "null"},
                            {"Int", "7", "null", "null"},
                            {"Tuple[String,String]", R"(["3","tp_group"])", "null", "null"},
                            {"Int", "5", "null", "null"},
                            {"String", R"("send")", "null", "null"},
                            {"GenericList[]", "[]", "null", "null"},
                            {"GenericList[]", "[]", "null", "null"},
                            {"Int", "0", "null", "null"},
                            {"Int", "1", "null", "null"},
                            {"Int", "8", "null", "null"}});
  const auto r = read_comm_record(node, trace);
  EXPECT_EQ(r.kind, CommKind::kSend);
  EXPECT_EQ(r.peer_rank, 5);
  EXPECT_EQ(r.pg_name, "3");
  EXPECT_EQ(r.seq, 7);
  EXPECT_EQ(r.group_size, 8);
}

// Newer PyTorch appends isAsyncOp (Bool) after world_size.
TEST(CommRecord, WorldSizeBeforeTheAsyncFlag) {
  pytorch::HostTrace trace;
  const auto node = record({{"GenericList[Tensor(float)]", "[]", "null", "null"},
                            {"Int", "7", "null", "null"},
                            {"Tuple[String,String]", R"(["3","tp_group"])", "null", "null"},
                            {"Int", "0", "null", "null"},
                            {"String", R"("all_gather")", "null", "null"},
                            {"GenericList[]", "[]", "null", "null"},
                            {"GenericList[]", "[]", "null", "null"},
                            {"Int", "0", "null", "null"},
                            {"Int", "1", "null", "null"},
                            {"Int", "4", "null", "null"},
                            {"Bool", "true", "null", "null"}});
  EXPECT_EQ(read_comm_record(node, trace).group_size, 4);
}

}  // namespace
}  // namespace snr::et_convert
