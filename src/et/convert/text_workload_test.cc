#include "et/convert/text_workload.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "common/error.h"
#include "common/file_io.h"

namespace snr::et_convert {
namespace {

TextWorkload load(const std::string& name) {
  const auto path = std::filesystem::path(SNR_ET_CONVERT_DIR) / "testdata" / name;
  return parse_text_workload(read_file(path), path.string());
}

const ConvertedNode& by_name(const ConvertedGraph& graph, const std::string& name) {
  for (const auto& node : graph.nodes) {
    if (node.name == name) return node;
  }
  throw Error("no node " + name);
}

std::map<ConvertedNodeType, size_t> count_types(const ConvertedGraph& graph) {
  std::map<ConvertedNodeType, size_t> counts;
  for (const auto& node : graph.nodes) ++counts[node.type];
  return counts;
}

TEST(TextWorkload, DataParallel) {
  const auto graph = convert_text_workload(load("data_parallel.txt"), 3, 1);
  EXPECT_EQ(graph.rank, 3);
  // 3 FWD + 3 BWD_WG + 2 BWD_IG (none for the first layer) compute nodes,
  // one weight-gradient all-reduce per layer.
  auto counts = count_types(graph);
  EXPECT_EQ(counts[ConvertedNodeType::kComp], 8u);
  EXPECT_EQ(counts[ConvertedNodeType::kCommColl], 3u);
  const auto& fwd2 = by_name(graph, "COMP_NODE_conv2_FWD");
  const auto& fwd1 = by_name(graph, "COMP_NODE_conv1_FWD");
  EXPECT_EQ(fwd2.data_deps, std::vector<uint64_t>{fwd1.id});
  EXPECT_EQ(fwd2.duration_micros, 200u);
  const auto& wg_fc = by_name(graph, "COMP_NODE_fc_BWD_WG");
  EXPECT_EQ(wg_fc.data_deps, std::vector<uint64_t>{by_name(graph, "COMP_NODE_fc_FWD").id});
  const auto& ar_conv2 = by_name(graph, "COMM_COLL_NODE_conv2_ALLREDUCE");
  EXPECT_EQ(ar_conv2.comm_type, CollectiveType::kAllReduce);
  EXPECT_EQ(ar_conv2.comm_size_bytes, 2000u);
  EXPECT_EQ(ar_conv2.data_deps, std::vector<uint64_t>{by_name(graph, "COMP_NODE_conv2_BWD_WG").id});
  // conv2's weight gradient waits for fc's input gradient.
  EXPECT_EQ(by_name(graph, "COMP_NODE_conv2_BWD_WG").data_deps,
            std::vector<uint64_t>{by_name(graph, "COMP_NODE_fc_BWD_IG").id});
  // Node ids restart per rank and deps always point backwards.
  EXPECT_EQ(graph.nodes.front().id, 0u);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (uint64_t d : graph.nodes[i].data_deps) EXPECT_LT(d, graph.nodes[i].id);
  }
}

TEST(TextWorkload, DataParallelSecondPassWaitsForAllReduce) {
  const auto graph = convert_text_workload(load("data_parallel.txt"), 0, 2);
  EXPECT_EQ(graph.nodes.size(), 22u);
  // Pass 2's conv1 forward (id 11) depends on pass 1's conv1 all-reduce.
  const auto& fwd = graph.nodes[11];
  EXPECT_EQ(fwd.name, "COMP_NODE_conv1_FWD");
  ASSERT_EQ(fwd.data_deps.size(), 1u);
  EXPECT_EQ(graph.nodes[fwd.data_deps[0]].name, "COMM_COLL_NODE_conv1_ALLREDUCE");
}

TEST(TextWorkload, ModelParallel) {
  const auto graph = convert_text_workload(load("model_parallel.txt"), 0, 1);
  // FWD comp+allgather per layer (4), BWD_IG comp per layer (2), IG
  // reduce-scatter for l2 only (1), BWD_WG comp per layer (2).
  auto counts = count_types(graph);
  EXPECT_EQ(counts[ConvertedNodeType::kComp], 6u);
  EXPECT_EQ(counts[ConvertedNodeType::kCommColl], 3u);
  const auto& ag2 = by_name(graph, "COMM_COLL_NODE_l2_ALLGATHER");
  EXPECT_EQ(ag2.comm_type, CollectiveType::kAllGather);
  EXPECT_EQ(ag2.comm_size_bytes, 256u);
  EXPECT_EQ(by_name(graph, "COMP_NODE_l2_FWD").data_deps,
            std::vector<uint64_t>{by_name(graph, "COMM_COLL_NODE_l1_ALLGATHER").id});
  const auto& ig1 = by_name(graph, "COMP_NODE_l1_BWD_IG");
  EXPECT_EQ(ig1.data_deps, (std::vector<uint64_t>{by_name(graph, "COMP_NODE_l2_BWD_WG").id,
                                                  by_name(graph, "COMM_COLL_NODE_l2_REDUCESCATTER").id}));
  EXPECT_EQ(by_name(graph, "COMM_COLL_NODE_l2_REDUCESCATTER").comm_size_bytes, 512u);
}

TEST(TextWorkload, HybridSkipsNoneComms) {
  const auto graph = convert_text_workload(load("hybrid.txt"), 0, 1);
  // emb: FWD, all-to-all, IG, WG, all-reduce (IG comm skipped: first layer).
  // mlp: FWD (fwd comm NONE: no node), IG, all-gather, WG, all-reduce.
  auto counts = count_types(graph);
  EXPECT_EQ(counts[ConvertedNodeType::kComp], 6u);
  EXPECT_EQ(counts[ConvertedNodeType::kCommColl], 4u);
  // mlp has no forward comm: emb's backward starts from mlp's forward compute.
  EXPECT_EQ(by_name(graph, "COMP_NODE_mlp_BWD_IG").data_deps,
            std::vector<uint64_t>{by_name(graph, "COMP_NODE_mlp_FWD").id});
  EXPECT_EQ(by_name(graph, "COMM_COLL_NODE_emb_ALLTOALL").comm_size_bytes, 4096u);
  EXPECT_EQ(by_name(graph, "COMM_COLL_NODE_mlp_ALLREDUCE").comm_size_bytes, 16384u);
  // Chakra names HYBRID_DATA_MODEL's input-gradient comm <layer>_IG_COMM_; HYBRID_MODEL_DATA's <layer>.
  EXPECT_EQ(by_name(graph, "COMM_COLL_NODE_mlp_IG_COMM__ALLGATHER").comm_size_bytes, 1024u);
  TextWorkload model_data = load("hybrid.txt");
  model_data.parallelism = TextParallelism::kHybridModelData;
  EXPECT_EQ(by_name(convert_text_workload(model_data, 0, 1), "COMM_COLL_NODE_mlp_ALLGATHER").comm_size_bytes, 1024u);
}

std::vector<uint64_t> ids(const ConvertedGraph& graph, std::initializer_list<const char*> names) {
  std::vector<uint64_t> out;
  for (const char* name : names) out.push_back(by_name(graph, name).id);
  return out;
}

TEST(TextWorkload, Dlrm) {
  const auto workload = load("dlrm.txt");
  EXPECT_EQ(workload.parallelism, TextParallelism::kDlrm);
  EXPECT_EQ(workload.dlrm_last_bottom_layer, 1u);
  const auto graph = convert_text_workload(workload, 0, 1);
  // 4 FWD + 4 BWD_WG + 3 BWD_IG; the embeddings' forward and input-gradient
  // all-to-alls and 3 weight-gradient all-reduces (top1's forward all-gather
  // is dropped: only all-to-all forward comms are kept).
  auto counts = count_types(graph);
  EXPECT_EQ(counts[ConvertedNodeType::kComp], 11u);
  EXPECT_EQ(counts[ConvertedNodeType::kCommColl], 5u);
  EXPECT_EQ(by_name(graph, "COMP_NODE_bot_FWD").data_deps,
            ids(graph, {"COMP_NODE_emb_FWD", "COMM_COLL_NODE_emb_ALLTOALL"}));
  EXPECT_EQ(by_name(graph, "COMP_NODE_top1_FWD").data_deps, ids(graph, {"COMP_NODE_bot_FWD"}));
  EXPECT_EQ(by_name(graph, "COMP_NODE_top2_BWD_WG").data_deps, ids(graph, {"COMP_NODE_top2_FWD"}));
  EXPECT_EQ(by_name(graph, "COMP_NODE_top2_BWD_IG").data_deps, ids(graph, {"COMP_NODE_top2_BWD_WG"}));
  EXPECT_EQ(by_name(graph, "COMP_NODE_top1_BWD_WG").data_deps, ids(graph, {"COMP_NODE_top2_BWD_IG"}));
  // The embeddings' backward all-to-all follows the first top layer's input
  // gradient and gates the embeddings' weight gradient.
  std::vector<const ConvertedNode*> all_to_all;
  for (const auto& node : graph.nodes) {
    if (node.name == "COMM_COLL_NODE_emb_ALLTOALL") all_to_all.push_back(&node);
  }
  ASSERT_EQ(all_to_all.size(), 2u);
  EXPECT_EQ(all_to_all[0]->comm_size_bytes, 4096u);
  EXPECT_EQ(all_to_all[1]->comm_size_bytes, 2048u);
  EXPECT_EQ(all_to_all[1]->data_deps, ids(graph, {"COMP_NODE_top1_BWD_IG"}));
  EXPECT_EQ(by_name(graph, "COMP_NODE_emb_BWD_WG").data_deps,
            (std::vector<uint64_t>{by_name(graph, "COMP_NODE_bot_BWD_IG").id, all_to_all[1]->id}));
  EXPECT_EQ(by_name(graph, "COMM_COLL_NODE_bot_ALLREDUCE").comm_size_bytes, 1000u);
  // The second pass's forward waits for the layer's weight update.
  const auto two = convert_text_workload(workload, 0, 2);
  ASSERT_EQ(two.nodes.size(), 32u);
  EXPECT_EQ(two.nodes[16].name, "COMP_NODE_emb_FWD");
  EXPECT_EQ(two.nodes[16].data_deps, std::vector<uint64_t>{by_name(graph, "COMP_NODE_emb_BWD_WG").id});
}

TEST(TextWorkload, Micro) {
  const auto workload = parse_text_workload("MICRO\n1\nar -1 0 NONE 0 0 NONE 0 0 ALLREDUCE 1048576 0\n", "m.txt");
  const auto graph = convert_text_workload(workload, 0, 2);
  ASSERT_EQ(graph.nodes.size(), 2u);
  EXPECT_EQ(graph.nodes[1].comm_size_bytes, 1048576u);
  EXPECT_TRUE(graph.nodes[1].data_deps.empty());
}

TEST(TextWorkload, ErrorsNameTheLine) {
  auto expect_error = [](const std::string& text, const std::string& fragment) {
    try {
      parse_text_workload(text, "w.txt");
      ADD_FAILURE() << "no error for: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error("PIPELINE\n1\n", "w.txt:1: unsupported parallelism 'PIPELINE'");
  const std::string layer = "a -1 1 ALLTOALL 8 1 NONE 0 1 NONE 0 1\n";
  expect_error("HYBRID_DLRM\n1\n" + layer, "w.txt:1: HYBRID_DLRM needs the index of the last bottom-MLP layer");
  expect_error("HYBRID_DLRM_ENHANCED 1\n1\n" + layer, "w.txt:1: last bottom-MLP layer 1 is not one of the 1 layers");
  expect_error("HYBRID_DLRM x\n1\n" + layer, "w.txt:1: last bottom-MLP layer 'x'");
  expect_error("HYBRID_DLRM 1\n2\n" + layer + layer,
               "w.txt:1: last bottom-MLP layer 1 is the last of the 2 layers: a DLRM needs a top-MLP layer");
  expect_error("DATA\nx\n", "w.txt:2: layer count 'x'");
  expect_error("DATA\n2\na -1 1 NONE 0 1 NONE 0 1 NONE 0 1\n", "announces 2 layers but 1");
  expect_error("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 NONE 0\n", "w.txt:3: expected 12 columns, found 11");
  expect_error("DATA\n1\na -1 1 NONE 0 1 NONE 0 1 BCAST 5 1\n", "w.txt:3: unknown communication type 'BCAST'");
  expect_error("DATA\n1\na -1 -5 NONE 0 1 NONE 0 1 NONE 0 1\n", "forward compute time '-5'");
}

}  // namespace
}  // namespace snr::et_convert
