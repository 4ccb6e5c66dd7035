#include "et/convert/trace_linker.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "et/convert/linked_trace_json.h"
#include "common/file_io.h"
#include "formats/pytorch/json_input.h"

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
  EXPECT_EQ(stats.key, LinkKey::kRecordFunctionId);
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

TEST(TraceLinker, ExternalIdFallbackChecksNames) {
  auto host = pytorch::read_host_trace(testdata("sync_host.json"));
  auto device = pytorch::read_kineto_trace(testdata("sync_device.json"));
  for (auto& event : device.events) {
    event.record_function_id.reset();
    if (event.external_id) *event.external_id -= 899;  // 900.. -> 1..
  }
  LinkStats stats;
  const auto linked = link_traces(host, device, stats);
  EXPECT_EQ(stats.key, LinkKey::kExternalId);
  // External ids 1..5: 1 aten::add, 2 aten::item, 3 is _local_scalar_dense vs
  // host rf_id 3 aten::mul (rejected), 4 aten::mul vs rf_id 4 aten::mul, 5 aten::mul vs none.
  EXPECT_EQ(stats.host_ops_matched, 3u);
  EXPECT_EQ(stats.name_mismatches, 1u);
}

TEST(TraceLinker, LinkedJsonRoundTrips) {
  LinkStats stats;
  const auto linked = linked_sync_example(stats);
  const auto path = std::filesystem::temp_directory_path() / "snr_linker_roundtrip.json";
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
    EXPECT_EQ(reread.nodes[i].input_tensors.size(), linked.nodes[i].input_tensors.size());
  }
  // Linking a linked trace again is refused.
  EXPECT_THROW(link_traces(reread, pytorch::KinetoTrace{}, stats), Error);
}

// The linked format is documented (docs/formats/pytorch.md); this pins its
// exact bytes. Regenerate with `snr et link --host testdata/sync_host.json
// --device testdata/sync_device.json -o testdata/sync_linked.golden.json`
// after an intended format change.
TEST(TraceLinker, LinkedJsonMatchesGolden) {
  LinkStats stats;
  const auto linked = linked_sync_example(stats);
  const auto path = std::filesystem::temp_directory_path() / "snr_linker_golden.json";
  write_linked_trace(path, linked, stats, "sync_device.json");
  const std::string written = read_file(path);
  std::filesystem::remove(path);
  EXPECT_EQ(written, read_file(testdata("sync_linked.golden.json")));
}

}  // namespace
}  // namespace snr::et_convert
