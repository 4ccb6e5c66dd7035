// write_tables(): every table in CSV and JSON, one column order whether or
// not the table has rows, values that agree between the two forms.
#include <filesystem>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyze/analyze.h"
#include "analyze/test_run_data.h"
#include "common/file_io.h"
#include "common/scratch_dir.h"

namespace snr::analyze {
namespace {

using testing::build_chains;
using testing::RunBuilder;

std::filesystem::path scratch(const std::string& name) {
  const auto dir = snr::testing::scratch_path(name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

const std::vector<std::string> kTables = {"summary", "ops", "dmas", "stalls_by_op", "stalls_by_link", "chains",
                                          "dma_dependencies", "utilization", "vmem_summary", "vmem_series",
                                          "vmem_heatmap", "suggestions"};

TEST(Tables, EveryTableInBothForms) {
  RunBuilder b;
  build_chains(b, 3, 3, true);
  b.vmem(0, 0, 1, true, 10, 10);
  b.vmem(0, 0, 1, false, 20, 20);
  const Analysis a = analyze(b.build(), {});
  const auto dir = scratch("full");
  write_tables(a, dir.string());
  for (const std::string& t : kTables) {
    ASSERT_TRUE(std::filesystem::exists(dir / (t + ".csv"))) << t;
    ASSERT_TRUE(std::filesystem::exists(dir / (t + ".json"))) << t;
    EXPECT_TRUE(nlohmann::json::accept(read_file(dir / (t + ".json")))) << t;
  }
  const auto dmas = lines(read_file(dir / "dmas.csv"));
  ASSERT_EQ(dmas.size(), 10u);  // header + 9 DMAs
  EXPECT_EQ(dmas[0],
            "dma_id,chip,op,link,src_space,dst_space,bytes,issue_step,issue_pc,issue_cycle,base_done_cycle,"
            "transfer_start_cycle,transfer_end_cycle,wait_step,wait_start_cycle,wait_end_cycle,base_stall_cycles,"
            "transfer_stall_cycles,stall_cycles,slack_cycles,earliest_issue_step,earliest_issue_cycle,"
            "conservative_ready_step,conservative_ready_cycle,chain,chain_depth,slice_pcs,producer_dmas");
  const auto chains = nlohmann::json::parse(read_file(dir / "chains.json"));
  ASSERT_EQ(chains.size(), 3u);
  EXPECT_EQ(chains[0]["length"], 3);
  EXPECT_EQ(lines(read_file(dir / "chains.csv"))[1], "0,0,setup,3,0 1 2,1497,1467");
  // The suggestion text has commas: quoted in CSV, plain in JSON.
  const auto suggestions = nlohmann::json::parse(read_file(dir / "suggestions.json"));
  ASSERT_FALSE(suggestions.empty());
  EXPECT_EQ(suggestions[0]["kind"], "parallel_chain_heads");
  EXPECT_FALSE(suggestions[0]["moves"].empty());
  EXPECT_NE(read_file(dir / "suggestions.csv").find(",\"issue the 3 dependent-DMA chains"), std::string::npos);
  const auto heatmap = nlohmann::json::parse(read_file(dir / "vmem_heatmap.json"));
  ASSERT_EQ(heatmap.size(), 1u);
  EXPECT_EQ(heatmap[0]["used_pages"].size(), 2u);  // 8 pages in rows of 4
}

TEST(Tables, LastUtilizationWindowIsCutAtTheRunsEnd) {
  // A 2010-cycle run in windows of 21 cycles: the 96th window holds only 15,
  // so its busy fraction times window_cycles gives its busy cycles.
  RunBuilder b;
  b.inst(0, 0x1000, "op", "addi", 2009);
  b.busy(0, "scalar", 2000, 2010);
  AnalyzeOptions options;
  options.target_points = 100;
  const Analysis a = analyze(b.build(2010), options);
  const auto dir = scratch("windows");
  write_tables(a, dir.string());
  uint64_t scalar_windows = 0;
  for (const auto& row : nlohmann::json::parse(read_file(dir / "utilization.json"))) {
    if (row["unit"] != "scalar") continue;
    ++scalar_windows;
    const uint64_t start = row["start_cycle"];
    const uint64_t length = row["window_cycles"];
    EXPECT_EQ(length, std::min<uint64_t>(21, 2010 - start)) << start;
    if (start == 1995) {
      EXPECT_DOUBLE_EQ(row["busy_fraction"].get<double>() * static_cast<double>(length), 10.0);
    }
  }
  EXPECT_EQ(scalar_windows, 96u);
}

TEST(Tables, EmptyTablesKeepTheirHeader) {
  RunBuilder b;
  b.inst(0, 0x1000, "op", "addi", 0);
  const Analysis a = analyze(b.build(), {});
  const auto dir = scratch("empty");
  write_tables(a, dir.string());
  EXPECT_EQ(read_file(dir / "chains.csv"), "chain,chip,op,length,dma_ids,stall_cycles,base_stall_cycles\n");
  EXPECT_EQ(read_file(dir / "dma_dependencies.csv"), "producer_dma,consumer_dma,via\n");
  EXPECT_EQ(lines(read_file(dir / "suggestions.csv")).size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(read_file(dir / "dmas.json")).size(), 0u);
}

TEST(Tables, SameAnalysisSameBytes) {
  RunBuilder b;
  build_chains(b, 2, 2, true);
  const rundb::RunData data = b.build();
  const auto one = scratch("one");
  const auto two = scratch("two");
  write_tables(analyze(data, {}), one.string());
  write_tables(analyze(data, {}), two.string());
  for (const std::string& t : kTables) {
    EXPECT_EQ(read_file(one / (t + ".csv")), read_file(two / (t + ".csv"))) << t;
    EXPECT_EQ(read_file(one / (t + ".json")), read_file(two / (t + ".json"))) << t;
  }
}

}  // namespace
}  // namespace snr::analyze
