#include "et/convert/trace_linker.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"
#include "common/scratch_dir.h"
#include "et/convert/linked_trace_json.h"
#include "common/file_io.h"
#include "formats/pytorch/json_input.h"
#include "et/convert/synthetic_traces_test_util.h"

namespace snr::et_convert {
namespace {

std::filesystem::path testdata(const std::string& name) {
  return std::filesystem::path(SNR_ET_CONVERT_DIR) / "testdata" / name;
}

pytorch::HostTrace linked_sync_example(LinkStats& stats) {
  const auto host = pytorch::read_host_trace(testdata("sync_host.json"));
  const auto device = pytorch::read_kineto_trace(testdata("sync_device.json"));
  return link_traces(host, device, stats);
}

const pytorch::HostNode& node_named(const pytorch::HostTrace& trace, const std::string& name) {
  for (const auto& node : trace.nodes) {
    if (node.name == name) return node;
  }
  throw Error("no node " + name);
}

TEST(TraceLinker, JoinsOnRecordFunctionId) {
  LinkStats stats;
  const auto linked = linked_sync_example(stats);
  ASSERT_EQ(stats.matcher_names.front(), "record_function_id");
  EXPECT_EQ(stats.matched_by.front(), 4u);
  EXPECT_EQ(stats.confidence, "high");
  EXPECT_TRUE(stats.problems.empty());
  EXPECT_EQ(stats.roots, 1u);  // the thread root is never in Kineto
  EXPECT_EQ(stats.host_ops, 4u);
  EXPECT_EQ(stats.host_ops_matched, 4u);
  EXPECT_EQ(stats.gpu_activities, 5u);
  EXPECT_EQ(stats.gpu_linked, 4u);
  EXPECT_EQ(stats.gpu_without_runtime, 1u);  // orphan_kernel: correlation 5000 has no runtime call
  EXPECT_EQ(stats.syncs_linked, 1u);
  EXPECT_EQ(linked.rank, 3);
  ASSERT_EQ(linked.nodes.size(), 5u + 4u);

  const auto& add = node_named(linked, "aten::add");
  EXPECT_EQ(add.ts_ns, 100000);
  EXPECT_EQ(add.dur_ns, 50000);
  // Device nodes get ids above the host ids, in launch order.
  const auto& kernel = node_named(linked, "add_kernel");
  EXPECT_EQ(kernel.id, 7u);
  EXPECT_EQ(kernel.parent_id, 3u);
  EXPECT_EQ(kernel.kind, pytorch::HostNodeKind::kKernel);
  EXPECT_EQ(kernel.dur_ns, 2500);
  EXPECT_EQ(kernel.launch_ts_ns, 110000);
  EXPECT_EQ(kernel.stream, 7);
  // The memcpy is launched inside _local_scalar_dense, which the host trace
  // lacks: it goes to the nearest matched enclosing op, aten::item.
  const auto& memcpy = node_named(linked, "Memcpy DtoH (Device -> Pinned)");
  EXPECT_EQ(memcpy.parent_id, 4u);
  EXPECT_EQ(memcpy.kind, pytorch::HostNodeKind::kGpuMemcpy);
  const auto& item = node_named(linked, "aten::item");
  ASSERT_EQ(item.syncs.size(), 1u);
  EXPECT_EQ(item.syncs[0].api, "cudaStreamSynchronize");
  EXPECT_EQ(item.syncs[0].ts_ns, 230000);
}

TEST(TraceLinker, WithoutRecordFunctionIdsAlignsByNames) {
  auto host = pytorch::read_host_trace(testdata("sync_host.json"));
  auto device = pytorch::read_kineto_trace(testdata("sync_device.json"));
  for (auto& event : device.events) {
    event.record_function_id.reset();
    if (event.external_id) *event.external_id -= 899;  // 900.. -> 1..
  }
  LinkStats stats;
  link_traces(host, device, stats);
  // External ids 1..5 against rf_ids 1..4: offset 0 fits add and item, +1
  // fits the two muls (aten::_local_scalar_dense took id 3 in Kineto only);
  // too few ops for an offset to beat chance, so the op sequences decide.
  EXPECT_EQ(stats.host_ops_matched, 4u);
  EXPECT_EQ(stats.matched_by.back(), 4u);
  EXPECT_EQ(stats.matcher_names.back(), "op_sequence");
}

TEST(TraceLinker, LinkedJsonRoundTrips) {
  LinkStats stats;
  const auto linked = linked_sync_example(stats);
  const auto path = snr::testing::scratch_path("roundtrip.json");
  write_linked_trace(path, linked, stats, "sync_device.json");
  const auto reread = pytorch::read_host_trace(path);
  std::filesystem::remove(path);
  EXPECT_TRUE(reread.linked);
  EXPECT_EQ(reread.rank, 3);
  ASSERT_EQ(reread.nodes.size(), linked.nodes.size());
  for (size_t i = 0; i < linked.nodes.size(); ++i) {
    EXPECT_EQ(reread.nodes[i].id, linked.nodes[i].id);
    EXPECT_EQ(reread.nodes[i].kind, linked.nodes[i].kind);
    EXPECT_EQ(reread.nodes[i].ts_ns, linked.nodes[i].ts_ns);
    EXPECT_EQ(reread.nodes[i].dur_ns, linked.nodes[i].dur_ns);
    EXPECT_EQ(reread.nodes[i].launch_ts_ns, linked.nodes[i].launch_ts_ns);
    EXPECT_EQ(reread.nodes[i].syncs.size(), linked.nodes[i].syncs.size());
    EXPECT_EQ(pytorch::find_tensors(reread.nodes[i].inputs, nullptr).size(),
              pytorch::find_tensors(linked.nodes[i].inputs, nullptr).size());
  }
  // Linking a linked trace again is refused.
  EXPECT_THROW(link_traces(reread, pytorch::KinetoTrace{}, stats), Error);
}

// The linked format is documented (docs/formats/pytorch.md); this pins its
// exact bytes. After an intended format change, regenerate it with
// SNR_UPDATE_GOLDEN=1 et_convert_test --gtest_filter='*Golden*' (or
// `snr et link --host testdata/sync_host.json --device
// testdata/sync_device.json -o testdata/sync_linked.golden.json`).
TEST(TraceLinker, LinkedJsonMatchesGolden) {
  LinkStats stats;
  const auto linked = linked_sync_example(stats);
  const auto path = snr::testing::scratch_path("golden.json");
  write_linked_trace(path, linked, stats, "sync_device.json");
  const std::string written = read_file(path);
  std::filesystem::remove(path);
  if (std::getenv("SNR_UPDATE_GOLDEN") != nullptr) write_file_atomic(testdata("sync_linked.golden.json"), written);
  EXPECT_EQ(written, read_file(testdata("sync_linked.golden.json")));
}

TEST(TraceLinker, CudaSyncEventsGiveSyncCallsTheirStream) {
  auto document = nlohmann::json::parse(read_file(testdata("sync_device.json")));
  auto& events = document["traceEvents"];
  // The GPU-side record of the cudaStreamSynchronize (correlation 79) names
  // stream 7; a cudaStreamWaitEvent (correlation 90) makes stream 8 wait for 7.
  events.push_back({{"ph", "X"}, {"cat", "cuda_sync"}, {"name", "Stream Sync"}, {"pid", 0}, {"tid", 7},
                    {"ts", 231}, {"dur", 40}, {"args", {{"correlation", 79}, {"stream", 7}, {"device", 0}}}});
  events.push_back({{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaStreamWaitEvent"}, {"pid", 50},
                    {"tid", 50}, {"ts", 410}, {"dur", 2}, {"args", {{"correlation", 90}}}});
  events.push_back({{"ph", "X"}, {"cat", "cuda_sync"}, {"name", "Wait Event"}, {"pid", 0}, {"tid", 8},
                    {"ts", 411}, {"dur", 0},
                    {"args", {{"correlation", 90}, {"stream", 8}, {"wait_on_stream", 7}, {"device", 0}}}});
  events.push_back({{"ph", "X"}, {"cat", "cuda_sync"}, {"name", "Context Sync"}, {"pid", 0}, {"tid", 7},
                    {"ts", 700}, {"dur", 1}, {"args", {{"correlation", 4242}, {"device", 0}}}});
  const auto device = pytorch::parse_kineto_trace(document, "sync_device.json + cuda_sync");
  LinkStats stats;
  const auto linked = link_traces(pytorch::read_host_trace(testdata("sync_host.json")), device, stats);
  const auto& item = node_named(linked, "aten::item");
  ASSERT_EQ(item.syncs.size(), 1u);
  EXPECT_EQ(item.syncs[0].stream, 7);  // was -1 (every stream) without the cuda_sync event
  EXPECT_EQ(stats.cuda_sync_events, 3u);
  EXPECT_EQ(stats.cuda_sync_attached, 1u);
  EXPECT_EQ(stats.cuda_sync_stream_waits, 1u);
  EXPECT_EQ(stats.cuda_sync_without_call, 1u);  // correlation 4242 has no runtime call
  EXPECT_EQ(stats.cuda_sync_attached + stats.cuda_sync_unlinked + stats.cuda_sync_stream_waits +
                stats.cuda_sync_without_call,
            stats.cuda_sync_events);
}

TEST(TraceLinker, DetectsAConstantExternalIdOffset) {
  // 120 host ops; the Kineto trace holds 50 ops of another iteration first,
  // then these with External id = rf_id + 1 (what the DLRM traces show).
  const auto pair = synthetic_pair({.ops = 120, .external_id_offset = 1, .kineto_ops_before = 50});
  LinkStats stats;
  const auto linked = link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.host_ops, 120u);
  EXPECT_EQ(stats.host_ops_matched, 120u);
  EXPECT_EQ(stats.matched_by[1], 120u);  // external_id_offset
  ASSERT_FALSE(stats.matcher_notes.empty());
  EXPECT_NE(stats.matcher_notes.front().find("External id = rf_id +51"), std::string::npos)
      << stats.matcher_notes.front();
  EXPECT_EQ(stats.confidence, "high");
  // Each op got the timing of its own Kineto op: ts = 1000 * position in Kineto.
  for (const auto& node : linked.nodes) {
    if (!node.rf_id || !node.ts_ns) continue;
    EXPECT_EQ(*node.ts_ns, 1000 * (kSyntheticBaseMicros + 1000 * static_cast<int64_t>(*node.rf_id - 1 + 50)));
  }
  // Every GPU activity of the host's ops is linked, the other iteration's are not.
  EXPECT_EQ(stats.gpu_activities, 170u);
  EXPECT_EQ(stats.gpu_linked, 120u);
  EXPECT_EQ(stats.gpu_without_host_op, 50u);
}

TEST(TraceLinker, DetectsOneOffsetPerPiece) {
  // Ids jump by 37 after op 60 on the Kineto side only.
  const auto pair = synthetic_pair({.ops = 120, .external_id_offset = 5, .jump_after = 60, .jump = 37});
  LinkStats stats;
  link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.host_ops_matched, 120u);
  EXPECT_EQ(stats.matched_by[1], 120u);
  ASSERT_FALSE(stats.matcher_notes.empty());
  EXPECT_NE(stats.matcher_notes.front().find("+5 (60 ops)"), std::string::npos) << stats.matcher_notes.front();
  EXPECT_NE(stats.matcher_notes.front().find("+42 (60 ops)"), std::string::npos) << stats.matcher_notes.front();
}

TEST(TraceLinker, AlignsSequencesWhenKinetoHasNoIds) {
  const auto pair = synthetic_pair({.ops = 80, .kineto_ops_before = 30, .kineto_ids = false});
  LinkStats stats;
  link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.host_ops_matched, 80u);
  EXPECT_EQ(stats.matched_by[2], 80u);  // op_sequence
  EXPECT_EQ(stats.confidence, "high");
}

TEST(TraceLinker, RefusesAnotherProcess) {
  auto pair = synthetic_pair({.ops = 60});
  pair.host.pid = 4242;
  LinkStats stats;
  link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.confidence, "refused");
  ASSERT_EQ(stats.problems.size(), 1u);
  EXPECT_NE(stats.problems[0].find("pid mismatch: the host trace is process 4242"), std::string::npos);
}

TEST(TraceLinker, RefusesAnotherDay) {
  auto pair = synthetic_pair({.ops = 60});
  pair.host.root_fields["time"] = "2022-07-12 12:47:27";  // the Kineto trace is from 2023-07-12
  LinkStats stats;
  link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.confidence, "refused");
  ASSERT_EQ(stats.problems.size(), 1u);
  EXPECT_NE(stats.problems[0].find("time mismatch"), std::string::npos) << stats.problems[0];
  EXPECT_NE(stats.problems[0].find("365.2 days apart"), std::string::npos) << stats.problems[0];
  // A few hours apart is a time zone, not another run.
  pair.host.root_fields["time"] = "2023-07-12 08:00:00";
  link_traces(pair.host, pair.device, stats);
  EXPECT_TRUE(stats.problems.empty());
}

TEST(TraceLinker, RefusesUnrelatedOps) {
  // Same process and time, but the Kineto ops are another program's.
  const auto pair = synthetic_pair({.ops = 200, .kineto_names_shift = 1});
  LinkStats stats;
  link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.confidence, "refused");
  ASSERT_FALSE(stats.problems.empty());
  EXPECT_NE(stats.problems.back().find("name mismatch"), std::string::npos) << stats.problems.back();
  EXPECT_LT(stats.host_ops_matched, 100u);
  // The threshold is the caller's.
  LinkOptions lenient;
  lenient.min_linked_fraction = 0.0;
  link_traces(pair.host, pair.device, lenient, stats);
  EXPECT_EQ(stats.confidence, "partial");
}

TEST(TraceLinker, CountersAddUp) {
  const auto pair = synthetic_pair({.ops = 90, .external_id_offset = 3, .kineto_ops_before = 10,
                                    .markers = true, .missing_in_kineto = 7});
  LinkStats stats;
  link_traces(pair.host, pair.device, stats);
  EXPECT_EQ(stats.host_ops, 90u);
  EXPECT_EQ(stats.markers, 2u);
  EXPECT_EQ(stats.markers_matched, 2u);
  EXPECT_EQ(stats.host_ops_matched, 83u);
  EXPECT_EQ(stats.host_ops_matched + stats.host_ops_unmatched_name_differs + stats.host_ops_unmatched_absent,
            stats.host_ops);
  EXPECT_EQ(stats.kineto_cpu_ops, 10u + 83u + 2u);
  EXPECT_EQ(stats.kineto_cpu_ops_matched, 85u);
  EXPECT_EQ(stats.gpu_linked + stats.gpu_without_runtime + stats.gpu_without_cpu_op + stats.gpu_without_host_op,
            stats.gpu_activities);
}

}  // namespace
}  // namespace snr::et_convert
