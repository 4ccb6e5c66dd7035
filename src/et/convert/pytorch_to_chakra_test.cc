#include "et/convert/pytorch_to_chakra.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "et/convert/trace_linker.h"

namespace snr::et_convert {
namespace {

std::filesystem::path testdata(const std::string& name) {
  return std::filesystem::path(SNR_ET_CONVERT_DIR) / "testdata" / name;
}

const ConvertedNode& node_with_id(const ConvertedGraph& graph, uint64_t id) {
  for (const auto& node : graph.nodes) {
    if (node.id == id) return node;
  }
  throw Error("no node " + std::to_string(id));
}

bool depends_on(const ConvertedNode& node, uint64_t id) {
  return std::count(node.data_deps.begin(), node.data_deps.end(), id) +
             std::count(node.ctrl_deps.begin(), node.ctrl_deps.end(), id) > 0;
}

ConvertedGraph convert_sync_example(PytorchConvertStats& stats) {
  LinkStats link_stats;
  const auto linked = link_traces(pytorch::read_host_trace(testdata("sync_host.json")),
                                  pytorch::read_kineto_trace(testdata("sync_device.json")), link_stats);
  return convert_pytorch_trace(linked, {}, stats);
}

// Linked ids (trace_linker_test): host ops 3 add, 4 item, 5 mul, 6 mul;
// device nodes 7 add_kernel (stream 7), 8 memcpy (stream 7, launched by
// item), 9 and 10 mul_kernel (stream 8).
TEST(PytorchToChakra, LinkedGraphRules) {
  PytorchConvertStats stats;
  const auto graph = convert_sync_example(stats);
  EXPECT_EQ(graph.rank, 3);  // from the Kineto trace's distributedInfo
  EXPECT_EQ(stats.cpu_ops, 4u);
  EXPECT_EQ(stats.gpu_ops, 4u);
  ASSERT_EQ(graph.nodes.size(), 8u);

  const auto& add = node_with_id(graph, 3);
  EXPECT_EQ(add.is_cpu_op, true);
  EXPECT_EQ(add.duration_micros, 50u);
  const auto& kernel = node_with_id(graph, 7);
  EXPECT_EQ(kernel.is_cpu_op, false);
  EXPECT_EQ(kernel.duration_micros, 3u);  // 2.5 µs rounds half up
  EXPECT_EQ(kernel.ctrl_deps, std::vector<uint64_t>{3});  // launched by aten::add
  // Same-stream order: the memcpy follows add_kernel on stream 7.
  EXPECT_TRUE(depends_on(node_with_id(graph, 8), 7));
  EXPECT_TRUE(depends_on(node_with_id(graph, 10), 9));
  EXPECT_FALSE(depends_on(node_with_id(graph, 9), 8));  // other stream
  // Data: aten::item reads add's output tensor 14; thread order too.
  EXPECT_TRUE(depends_on(node_with_id(graph, 4), 3));
  // Sync: aten::item calls cudaStreamSynchronize after launching the
  // memcpy, so the next CPU op (aten::mul 5) waits for the memcpy (and,
  // through stream order, add_kernel).
  const auto& mul = node_with_id(graph, 5);
  EXPECT_TRUE(depends_on(mul, 8));
  EXPECT_TRUE(depends_on(mul, 4));
  EXPECT_EQ(stats.sync_deps, 1u);
  // The second mul reads the first mul's output.
  EXPECT_TRUE(depends_on(node_with_id(graph, 6), 5));
  // Every dependency precedes its user in the output order.
  std::vector<uint64_t> seen;
  for (const auto& node : graph.nodes) {
    for (uint64_t d : node.data_deps) EXPECT_NE(std::find(seen.begin(), seen.end(), d), seen.end());
    for (uint64_t d : node.ctrl_deps) EXPECT_NE(std::find(seen.begin(), seen.end(), d), seen.end());
    seen.push_back(node.id);
  }
}

TEST(PytorchToChakra, HostOnlyCollective) {
  const auto trace = pytorch::read_host_trace(
      std::filesystem::path(SNR_PYTORCH_FORMATS_DIR) / "fuzz_corpus/host/schema_1_0_2_comms.json");
  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(trace, {}, stats);
  ASSERT_EQ(graph.nodes.size(), 1u);
  const auto& comm = graph.nodes[0];
  EXPECT_EQ(comm.type, ConvertedNodeType::kCommColl);
  EXPECT_EQ(comm.comm_type, CollectiveType::kAllReduce);
  EXPECT_EQ(comm.comm_size_bytes, 64u);  // 16 floats
  EXPECT_EQ(comm.pg_name, "5");          // group id 5 has no process-group entry
  EXPECT_FALSE(comm.is_cpu_op.has_value());
}

TEST(PytorchToChakra, SendRecvTagsCountPerPeer) {
  const char* text = R"({"nodes": [
    {"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {}, "outputs": {}, "attrs": []},
    {"id": 3, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {"values": [[[1,1,0,8,4,"cuda:0"]], 1, ["0", "default"], 1, "send", [], [], 2], "shapes": [[[8]],[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int","Tuple[String,String]","Int","String","GenericList[]","GenericList[]","Int"]}, "outputs": {}, "attrs": []},
    {"id": 4, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {"values": [[[2,2,0,8,4,"cuda:0"]], 2, ["0", "default"], 1, "recv", [], [], 2], "shapes": [[[8]],[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int","Tuple[String,String]","Int","String","GenericList[]","GenericList[]","Int"]}, "outputs": {}, "attrs": []},
    {"id": 5, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {"values": [[[1,1,0,8,4,"cuda:0"]], 3, ["0", "default"], 1, "send", [], [], 2], "shapes": [[[8]],[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int","Tuple[String,String]","Int","String","GenericList[]","GenericList[]","Int"]}, "outputs": {}, "attrs": []}
  ]})";
  const auto trace = pytorch::parse_host_trace_text(text, "p2p.json");
  PytorchConvertStats stats;
  PytorchConvertOptions options;
  options.rank = 0;
  const auto graph = convert_pytorch_trace(trace, options, stats);
  ASSERT_EQ(graph.nodes.size(), 3u);
  EXPECT_EQ(stats.comm_send, 2u);
  EXPECT_EQ(stats.comm_recv, 1u);
  const auto& send0 = node_with_id(graph, 3);
  EXPECT_EQ(send0.type, ConvertedNodeType::kCommSend);
  EXPECT_EQ(send0.comm_src, 0);
  EXPECT_EQ(send0.comm_dst, 1);
  EXPECT_EQ(send0.comm_tag, 0);
  EXPECT_EQ(send0.comm_size_bytes, 32u);
  const auto& recv = node_with_id(graph, 4);
  EXPECT_EQ(recv.type, ConvertedNodeType::kCommRecv);
  EXPECT_EQ(recv.comm_src, 1);
  EXPECT_EQ(recv.comm_dst, 0);
  EXPECT_EQ(recv.comm_tag, 0);
  EXPECT_EQ(node_with_id(graph, 5).comm_tag, 1);  // second send 0 -> 1
}

// A peer that is no rank (beyond --rank's range, or negative) is written
// as -1, which the simulator refuses, never wrapped to a 32-bit rank
// (4294967297 would otherwise name rank 1).
TEST(PytorchToChakra, PeersBeyondTheRankRangeAreNoPeer) {
  const auto send_to = [](const char* peer) {
    return fmt::format(R"({{"nodes": [
    {{"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {{}}, "outputs": {{}}, "attrs": []}},
    {{"id": 3, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {{"values": [[[1,1,0,8,4,"cuda:0"]], 1, ["0", "default"], {}, "send", [], [], 2], "shapes": [[[8]],[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int","Tuple[String,String]","Int","String","GenericList[]","GenericList[]","Int"]}}, "outputs": {{}}, "attrs": []}}
  ]}})",
                       peer);
  };
  for (const char* peer : {"4294967297", "1048576", "-3"}) {
    SCOPED_TRACE(peer);
    const auto trace = pytorch::parse_host_trace_text(send_to(peer), "p2p.json");
    PytorchConvertStats stats;
    PytorchConvertOptions options;
    options.rank = 0;
    const auto graph = convert_pytorch_trace(trace, options, stats);
    ASSERT_EQ(graph.nodes.size(), 1u);
    EXPECT_EQ(graph.nodes[0].comm_dst, -1);
    EXPECT_EQ(stats.peers_unknown, 1u);
    EXPECT_NE(describe(stats).find("1 of 1 sends and receives have no peer rank"), std::string::npos);
  }
}

// PyTorch records a rooted collective's root in the rank field
// (opts.rootRank, a rank of its group): it is not the trace's own rank, and
// it becomes the node's comm_src as a global rank, through the group's
// ranks where process_group:init lists them.
TEST(PytorchToChakra, RootedCollectivesNameTheirRoot) {
  const auto record = [](int id, const char* pg, int rank, const char* name) {
    return fmt::format(R"({{"id": {}, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {{"values": )"
                       R"([[[1,1,0,8,4,"cuda:1"]], {}, ["{}", "default"], {}, "{}", [], [], 2], "shapes": )"
                       R"([[[8]],[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int",)"
                       R"("Tuple[String,String]","Int","String","GenericList[]","GenericList[]","Int"]}}, )"
                       R"("outputs": {{}}, "attrs": []}})",
                       id, id, pg, rank, name);
  };
  const std::string text =
      std::string(R"({"nodes": [)") +
      R"({"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {}, )"
      R"("outputs": {}, "attrs": []},)"
      R"({"id": 9, "name": "## process_group:init ##", "ctrl_deps": 1, "inputs": {"values": ["[{\"pg_name\": )"
      R"(\"7\", \"backend_config\": \"cuda:nccl\", \"ranks\": [2, 3], \"group_size\": 2}]"], "shapes": [[]], )"
      R"("types": ["String"]}, "outputs": {}, "attrs": []},)" +
      record(3, "0", 1, "all_gather") + "," + record(4, "0", 0, "broadcast") + "," + record(5, "7", 1, "broadcast") +
      "," + record(6, "8", 0, "reduce") + "]}";
  const auto trace = pytorch::parse_host_trace_text(text, "rooted.json");
  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(trace, {}, stats);
  // The all-gather's rank field (1) is the trace's rank; the broadcast's 0 is its root.
  EXPECT_EQ(graph.rank, 1);
  EXPECT_EQ(stats.rank_source, "inferred: the rank field of 1 collective record(s)");
  EXPECT_EQ(node_with_id(graph, 3).comm_src, -1);
  EXPECT_EQ(node_with_id(graph, 4).comm_src, 0);  // the default group: global = group rank
  EXPECT_EQ(node_with_id(graph, 5).comm_src, 3);  // rank 1 of group 7 = [2, 3]
  EXPECT_EQ(node_with_id(graph, 6).comm_src, -1);  // group 8's ranks unknown
  EXPECT_EQ(stats.rooted_collectives, 3u);
  EXPECT_EQ(stats.roots_unknown, 1u);
  EXPECT_NE(describe(stats).find("1 of 3 rooted collectives"), std::string::npos) << describe(stats);
}

// A rank inferred from the records names the output file as the root's
// would: beyond --rank's range it is an error, not gigabytes of groups.
TEST(PytorchToChakra, InferredRankBeyondTheRangeIsAnError) {
  const auto trace_with = [](const std::string& node) {
    return pytorch::parse_host_trace_text(
        R"({"nodes": [{"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {}, )"
        R"("outputs": {}, "attrs": []}, )" + node + "]}",
        "inferred.json");
  };
  const auto collective = trace_with(
      R"({"id": 3, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {"values": [[[1,1,0,8,4,"cuda:0"]], 1, )"
      R"(["0", "default"], 4294967296, "all_gather", [], [], 2], "shapes": [[[8]],[],[],[],[],[],[],[]], "types": )"
      R"(["GenericList[Tensor(float)]","Int","Tuple[String,String]","Int","String","GenericList[]","GenericList[]",)"
      R"("Int"]}, "outputs": {}, "attrs": []})");
  const auto device = trace_with(R"({"id": 3, "name": "kernel", "ctrl_deps": 2, "snr_kind": "kernel", )"
                                 R"("device": 1048576, "dur_ns": 5})");
  for (const auto* trace : {&collective, &device}) {
    PytorchConvertStats stats;
    try {
      convert_pytorch_trace(*trace, {}, stats);
      FAIL() << "an inferred rank beyond 1048575 was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("(inferred: "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("is out of range: valid 0 .. 1048575"), std::string::npos) << e.what();
    }
  }
  PytorchConvertOptions options;
  options.rank = 2;  // --rank decides
  PytorchConvertStats stats;
  EXPECT_EQ(convert_pytorch_trace(device, options, stats).rank, 2);
}

TEST(PytorchToChakra, CyclicParentsDoNotHang) {
  const char* text = R"({"nodes": [
    {"id": 3, "name": "a", "ctrl_deps": 4, "inputs": {}, "outputs": {}, "attrs": []},
    {"id": 4, "name": "b", "ctrl_deps": 3, "inputs": {}, "outputs": {}, "attrs": []}]})";
  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(pytorch::parse_host_trace_text(text, "cycle.json"), {}, stats);
  EXPECT_EQ(graph.nodes.size(), 1u);  // the loop is cut once: one op becomes the root
}

// sync_device.json plus two cudaStreamWaitEvent calls inside the second
// aten::mul (id 6) before it launches mul_kernel 10 on stream 8: one with a
// "Wait Event" cuda_sync naming stream 8 waiting on stream 7, one without.
TEST(PytorchToChakra, StreamWaitsOrderStreams) {
  LinkStats link_stats;
  const auto linked = link_traces(pytorch::read_host_trace(testdata("sync_host.json")),
                                  pytorch::read_kineto_trace(testdata("stream_wait_device.json")), link_stats);
  EXPECT_EQ(link_stats.stream_wait_calls, 2u);
  EXPECT_EQ(link_stats.stream_waits_linked, 2u);
  EXPECT_EQ(link_stats.stream_waits_with_streams, 1u);
  EXPECT_EQ(link_stats.cuda_sync_stream_waits, 1u);
  PytorchConvertStats stats;
  const auto graph = convert_pytorch_trace(linked, {}, stats);
  // The memcpy (8) is the last node launched on stream 7 before the wait.
  EXPECT_TRUE(depends_on(node_with_id(graph, 10), 8));
  EXPECT_FALSE(depends_on(node_with_id(graph, 9), 8));  // launched before the wait
  EXPECT_EQ(stats.stream_wait_deps, 1u);
  EXPECT_EQ(stats.stream_waits_unknown_stream, 1u);
  EXPECT_EQ(stats.stream_waits_no_node, 0u);
  // Without the waits, stream 8 does not wait for stream 7.
  PytorchConvertStats plain_stats;
  EXPECT_FALSE(depends_on(node_with_id(convert_sync_example(plain_stats), 10), 8));
}

// Rank 0 of the 8-rank H100 DDP job in miniature: an async record (id 21)
// nested under aten::reshape makes a synchronising call at t = 260 while
// aten::mul (id 30, started at 150, a higher id) runs and has launched
// its kernel at 250. The wait goes to the first op starting after the
// call (aten::add), not to aten::mul: that would make mul wait for its
// own kernel. gloo's records are left out altogether.
pytorch::HostTrace async_record_trace(const std::string& record_name) {
  pytorch::HostTrace trace;
  trace.linked = true;
  const auto op = [&](uint64_t id, std::string name, std::optional<uint64_t> parent, int64_t ts, int64_t dur) {
    pytorch::HostNode n;
    n.id = id;
    n.name = std::move(name);
    n.parent_id = parent;
    n.tid = 4;
    n.ts_ns = ts;
    n.dur_ns = dur;
    n.op_schema = trace.text_pool->intern(n.name + "(Tensor self) -> Tensor");
    trace.nodes.push_back(n);
    return trace.nodes.size() - 1;
  };
  op(10, "[pytorch|profiler|execution_trace|thread]", std::nullopt, 0, 0);
  trace.nodes.back().op_schema = {};
  trace.nodes.back().ts_ns.reset();
  trace.nodes.back().dur_ns.reset();
  op(20, "aten::reshape", 10, 100, 10);
  const size_t record = op(21, record_name, 20, 200, 500);
  trace.nodes[record].op_schema = {};
  trace.nodes[record].syncs.push_back({"cudaStreamSynchronize", 260, -1});
  op(30, "aten::mul", 10, 150, 200);
  pytorch::HostNode kernel;
  kernel.id = 31;
  kernel.name = "mul_kernel";
  kernel.parent_id = 30;
  kernel.kind = pytorch::HostNodeKind::kKernel;
  kernel.ts_ns = 300;
  kernel.dur_ns = 20;
  kernel.launch_ts_ns = 250;
  kernel.stream = 7;
  kernel.device = 0;
  trace.nodes.push_back(kernel);
  op(40, "aten::add", 10, 400, 10);
  return trace;
}

TEST(PytorchToChakra, SyncWaitsGoToOpsThatStartAfterTheCall) {
  for (const std::string name : {"record_function_async", "gloo:all_reduce"}) {
    PytorchConvertStats stats;
    const auto graph = convert_pytorch_trace(async_record_trace(name), {}, stats);
    EXPECT_FALSE(depends_on(node_with_id(graph, 30), 31)) << name;  // mul does not wait for its own kernel
    EXPECT_TRUE(depends_on(node_with_id(graph, 40), 31)) << name;   // add, after the call, does
    EXPECT_EQ(stats.sync_deps, 1u) << name;
    const bool emitted = std::any_of(graph.nodes.begin(), graph.nodes.end(),
                                     [](const ConvertedNode& n) { return n.id == 21; });
    EXPECT_FALSE(emitted) << name;  // absorbed into reshape, or gloo's and left out
    EXPECT_EQ(stats.backend_collective_work, name.starts_with("gloo:") ? 1u : 0u) << name;
  }
}

}  // namespace
}  // namespace snr::et_convert
