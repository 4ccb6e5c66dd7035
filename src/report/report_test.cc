// The report of a tiny hand-built analysis must match the checked-in golden
// HTML byte for byte. After a deliberate change to the report, regenerate
// with `SNR_UPDATE_GOLDEN=1 <build>/src/report/report_test` and review the
// diff (and open the new testdata/tiny_report.html in a browser).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>

#include "common/file_io.h"
#include "common/scratch_dir.h"
#include "report/html_report.h"
#include "report/plots.h"
#include "report/svg.h"

// The hand-built records name only the fields that matter for each case.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

namespace snr::report {
namespace {

using analyze::Analysis;
using analyze::DmaStall;

DmaStall dma(uint64_t id, uint32_t chip, std::string op, uint64_t issue, uint64_t base_done, uint64_t start,
             uint64_t end, std::optional<uint64_t> wait_start, std::optional<uint64_t> wait_end) {
  DmaStall d;
  d.dma_id = id;
  d.chip = chip;
  d.op = std::move(op);
  d.link = "hbm->vmem";
  d.src_space = "hbm";
  d.dst_space = "vmem";
  d.bytes = 4096;
  d.issue_cycle = issue;
  d.issue_step = issue / 2;
  d.base_done_cycle = base_done;
  d.transfer_start_cycle = start;
  d.transfer_end_cycle = end;
  d.wait_start_cycle = wait_start;
  d.wait_end_cycle = wait_end;
  if (wait_start && wait_end) {
    d.base_stall_cycles = *wait_start < base_done ? std::min(*wait_end, base_done) - *wait_start : 0;
    d.transfer_stall_cycles = *wait_end - std::max(*wait_start, std::min(*wait_end, base_done));
    d.slack_cycles = *wait_start > end ? *wait_start - end : 0;
  }
  d.earliest_issue_cycle = issue;
  d.conservative_ready_cycle = issue;
  return d;
}

// Two chips; on chip 0 a setup phase of one three-DMA chain (base-latency
// bound, like the all-gather) and a matmul whose WAIT comes late (slack).
Analysis tiny_analysis() {
  Analysis a;
  a.summary = {.source = "tiny.snr fnv1a64 0x1", .hw_preset = "tpu-v4-like", .clock_hz = 1e9, .chips = 2,
               .machine_chips = 2, .total_cycles = 4000, .instructions = 900, .stall_cycles = 2100,
               .dma_stall_cycles = 1700, .dma_base_stall_cycles = 1300, .dma_transfer_stall_cycles = 400,
               .stall_cycles_by_reason = {{"dma_wait", 1700}, {"data_hazard", 400}},
               .unit_utilization = {{"matrix", 0.25}, {"vector", 0.1}, {"scalar", 0.6}, {"dma", 0.3}}};
  a.dmas.push_back(dma(1, 0, "all_gather.setup", 100, 600, 600, 640, 110, 640));
  a.dmas.push_back(dma(2, 0, "all_gather.setup", 700, 1200, 1200, 1240, 710, 1240));
  a.dmas.push_back(dma(3, 0, "all_gather.setup", 1300, 1800, 1800, 1840, 1310, 1840));
  a.dmas.push_back(dma(4, 0, "layer0.<mlp> & \"up\"", 2000, 2500, 2600, 3000, 3400, 3400));
  a.dmas.push_back(dma(5, 1, "all_gather.setup", 100, 600, 650, 900, 800, 900));
  a.dmas[3].earliest_issue_cycle = 1500;
  a.dmas[1].earliest_issue_cycle = 640;
  for (int i = 0; i < 3; ++i) {
    a.dmas[static_cast<size_t>(i)].chain = 0;
    a.dmas[static_cast<size_t>(i)].chain_depth = static_cast<uint32_t>(i);
  }
  a.chains.push_back({.chip = 0, .op = "all_gather.setup", .dma_ids = {1, 2, 3}, .stall_cycles = 1590, .base_stall_cycles = 1470});
  a.dma_dependencies = {{1, 2, "vmem page 3 -> x7 -> dma.issue src"}, {2, 3, "vmem page 4 -> x7 -> dma.issue src"}};
  a.stalls_by_op = {{"all_gather.setup", 4, 16384, 1570, 150, 0}, {"layer0.<mlp> & \"up\"", 1, 4096, 0, 0, 400}};
  a.stalls_by_link = {{"hbm->vmem", 5, 20480, 1570, 150, 400}};
  a.ops.push_back({.chip = 0, .op = "all_gather.setup", .instructions = 40, .first_cycle = 0, .last_cycle = 1900,
                   .cycles = 1900, .stall_cycles = 1590, .dma_stall_cycles = 1590, .hbm_bytes = 12288,
                   .hbm_bandwidth_bytes_per_s = 6.5e9, .unit_utilization = {{"matrix", 0}, {"dma", 0.1}}});
  a.ops.push_back({.chip = 0, .op = "layer0.<mlp> & \"up\"", .instructions = 400, .first_cycle = 1900,
                   .last_cycle = 4000, .cycles = 2100, .stall_cycles = 0, .hbm_bytes = 4096,
                   .hbm_bandwidth_bytes_per_s = 2e9, .flops = 33554432, .achieved_flops_per_s = 1.6e13,
                   .unit_utilization = {{"matrix", 0.5}, {"dma", 0.2}}});
  a.ops.push_back({.chip = 1, .op = "all_gather.setup", .instructions = 20, .cycles = 900, .stall_cycles = 100,
                   .dma_stall_cycles = 100, .hbm_bytes = 4096, .hbm_bandwidth_bytes_per_s = 4.5e9});
  for (uint32_t chip : {0u, 1u}) {
    for (const char* unit : {"matrix", "vector", "scalar", "dma"}) {
      analyze::UtilizationSeries s{.chip = chip, .unit = unit, .window_cycles = 500, .end_cycle = 4000};
      for (int w = 0; w < 8; ++w) s.busy_fraction.push_back(((w + chip) % 3) / 2.0);
      a.utilization.push_back(s);
    }
  }
  analyze::VmemUsage v{.chip = 0, .page_bytes = 4096, .pages = 16, .sample_cycles = 500, .pages_per_block = 4};
  for (int s = 0; s < 8; ++s) {
    v.sample_cycle.push_back(static_cast<uint64_t>(s) * 500);
    v.unused_fraction.push_back(0.5 + 0.05 * (s % 3));
    v.largest_unused_fraction.push_back(0.25 + 0.05 * (s % 2));
  }
  v.used_pages_per_block = {{0, 1, 2, 3, 4, 4, 2, 0}, {4, 4, 4, 4, 0, 0, 0, 0}, {0, 0, 1, 1, 1, 1, 0, 0}, {2, 2, 2, 2, 2, 2, 2, 2}};
  v.pages_written_never_read = 3;
  v.median_unused_fraction = 0.55;
  v.median_largest_unused_fraction = 0.25;
  a.vmem.push_back(v);
  analyze::Suggestion heads{.kind = analyze::Suggestion::Kind::kParallelChainHeads, .chip = 0, .op = "all_gather.setup",
                            .dma_ids = {1, 2, 3}, .stall_cycles = 1590, .push_limit_cycles = 1200, .dma_bytes = 12288,
                            .memory_available = true, .predicted_saving_cycles = 1000,
                            .text = "issue the heads of the 3 dependent chains in all_gather.setup together"};
  heads.verification = {.attempted = true, .legal = true, .baseline_cycles = 4000, .rewritten_cycles = 3050,
                        .measured_saving_cycles = 950, .target_stall_cycles_before = 1590,
                        .target_stall_cycles_after = 560, .final_state_matched = true};
  analyze::Suggestion early{.kind = analyze::Suggestion::Kind::kIssueEarlier, .chip = 0, .op = "layer0.<mlp> & \"up\"",
                            .cross_op = true, .dma_ids = {4}, .stall_cycles = 0, .push_limit_cycles = 500,
                            .dma_bytes = 4096, .memory_available = true, .predicted_saving_cycles = 300,
                            .text = "move the ISSUE of DMA 4 into all_gather.setup"};
  early.verification = {.attempted = true, .legal = false, .illegal_reason = "x7 is overwritten by pc 0x1040 in between"};
  analyze::Suggestion unverified{.chip = 1, .op = "all_gather.setup", .dma_ids = {5}, .stall_cycles = 100,
                                 .predicted_saving_cycles = 100, .text = "issue DMA 5 earlier"};
  a.suggestions = {heads, early, unverified};
  return a;
}

std::filesystem::path golden_path() {
  const char* source = std::getenv("SNR_SOURCE_DIR");
  return std::filesystem::path(source != nullptr ? source : ".") / "src/report/testdata/tiny_report.html";
}

ReportOptions tiny_options() {
  ReportOptions options;
  options.title = "snr analysis: tiny";
  options.files = {{"ops table (CSV)", "tables/ops.csv"}, {"timeline (Perfetto)", "timeline.json"}};
  return options;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

TEST(Report, TinyAnalysisMatchesTheGoldenHtml) {
  const std::string html = render_report_html(tiny_analysis(), tiny_options());
  if (std::getenv("SNR_UPDATE_GOLDEN") != nullptr) write_file_atomic(golden_path(), html);
  ASSERT_TRUE(std::filesystem::exists(golden_path())) << golden_path();
  EXPECT_EQ(read_file(golden_path()), html) << "regenerate with SNR_UPDATE_GOLDEN=1 after a deliberate change";
}

TEST(Report, HasEveryFigureAndIsDeterministic) {
  const Analysis a = tiny_analysis();
  const std::string html = render_report_html(a, tiny_options());
  EXPECT_EQ(html, render_report_html(a, tiny_options()));
  EXPECT_EQ(count(html, R"(data-plot="dma-timeline")"), 1u);
  EXPECT_EQ(count(html, R"(data-plot="utilization")"), 2u);  // one per chip
  EXPECT_EQ(count(html, R"(data-plot="vmem-usage")"), 1u);
  EXPECT_EQ(count(html, R"(data-plot="vmem-heatmap")"), 1u);
  EXPECT_EQ(count(html, R"(data-plot="stall-bars")"), 2u);
  EXPECT_EQ(count(html, "class=\"plot\""), 7u);
  // Every figure has a title and axis labels.
  EXPECT_EQ(count(html, "class=\"title\""), 7u);
  EXPECT_GE(count(html, "class=\"label\""), 7u * 2 - 2);
  for (const char* section : {"id=\"summary\"", "id=\"ops\"", "id=\"dmas\"", "id=\"utilization\"", "id=\"vmem\"", "id=\"suggestions\""}) {
    EXPECT_NE(html.find(section), std::string::npos) << section;
  }
}

TEST(Report, OpensOfflineAndEscapesNames) {
  const std::string html = render_report_html(tiny_analysis(), tiny_options());
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("layer0.<mlp>"), std::string::npos);
  EXPECT_NE(html.find("layer0.&lt;mlp&gt; &amp; &quot;up&quot;"), std::string::npos);
}

TEST(Report, ShowsTheAnalysisFigures) {
  const std::string html = render_report_html(tiny_analysis(), tiny_options());
  // Summary: the base/transfer split and the VMEM medians.
  EXPECT_NE(html.find("1,700 cycles: 1,300 base latency (76.5%), 400 transfer (23.5%)"), std::string::npos);
  EXPECT_NE(html.find("median unused 55.0%, median largest contiguous unused 25.0%"), std::string::npos);
  // Per-op table: time, share of the window, FLOP/s and HBM bandwidth.
  EXPECT_NE(html.find("<td>2,100</td><td>2.10 µs</td><td>52.5%</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>16T</td><td>2.0</td>"), std::string::npos);
  // Drill-down lists the op's DMAs, chain membership included.
  EXPECT_NE(html.find("<summary>all_gather.setup (3 DMAs)</summary>"), std::string::npos);
  EXPECT_NE(html.find("<td>0 (depth 2)</td>"), std::string::npos);
  // Timeline: the chain bracket, a slack rect and a backtail.
  EXPECT_NE(html.find(">chain 0</text>"), std::string::npos);
  EXPECT_NE(html.find("url(#fig-dma-timeline-slack)\"/>"), std::string::npos);
  EXPECT_EQ(count(html, "stroke=\"#8c8c8c\" stroke-width=\"1\" fill=\"none\""), 2u);
  // Suggestions: predicted, measured, illegal and unverified, cross-op flag.
  EXPECT_NE(html.find("950 cycles</span> (4,000 → 3,050 cycles; target stalls 1,590 → 560; end state matches)"),
            std::string::npos);
  EXPECT_NE(html.find("illegal: x7 is overwritten by pc 0x1040 in between"), std::string::npos);
  EXPECT_NE(html.find("<td class=t>not verified</td>"), std::string::npos);
  EXPECT_NE(html.find("yes (Q1)"), std::string::npos);
  EXPECT_NE(html.find(R"(<a href="tables/ops.csv">ops table (CSV)</a>)"), std::string::npos);
}

TEST(Report, LargeAnalysesAreReducedToAFewMegabytes) {
  Analysis a = tiny_analysis();
  for (uint64_t i = 0; i < 50000; ++i) {
    a.dmas.push_back(dma(100 + i, static_cast<uint32_t>(i % 2), "big", i * 10, i * 10 + 500, i * 10 + 500,
                         i * 10 + 520 + i % 97, i * 10 + 30, i * 10 + 520 + i % 97));
  }
  for (auto& s : a.utilization) s.busy_fraction.assign(200000, 0.5);
  a.vmem[0].used_pages_per_block.assign(256, std::vector<uint32_t>(50000, 1));
  a.vmem[0].sample_cycle.resize(50000);
  a.vmem[0].unused_fraction.assign(50000, 0.5);
  a.vmem[0].largest_unused_fraction.assign(50000, 0.2);
  for (size_t i = 0; i < 50000; ++i) a.vmem[0].sample_cycle[i] = i * 500;
  a.ops.push_back({.chip = 0, .op = "big", .instructions = 1, .cycles = 1});
  for (int i = 0; i < 100; ++i) a.stalls_by_op.push_back({fmt::format("op{}", i), 1, 64, 10, 10, 0});
  const std::string html = render_report_html(a, tiny_options());
  EXPECT_LT(html.size(), 3u << 20) << html.size();
  EXPECT_NE(html.find("showing 400 consecutive DMAs of chip "), std::string::npos);
  EXPECT_NE(html.find("the stretch with the most WAIT stall; 50005 DMAs in all"), std::string::npos);
  EXPECT_NE(html.find("averaged in groups of"), std::string::npos);
  EXPECT_NE(html.find("256 blocks x 50000 samples shown as 64 x 160 cells"), std::string::npos);
  EXPECT_NE(html.find(">other (83)<"), std::string::npos);
  EXPECT_NE(html.find("24900 more DMAs not listed"), std::string::npos);
}

TEST(Report, WritesIndexHtml) {
  const std::filesystem::path dir = snr::testing::scratch_path("report_out");
  std::filesystem::remove_all(dir);
  const std::filesystem::path path = write_report(tiny_analysis(), dir / "nested", tiny_options());
  EXPECT_EQ(path, dir / "nested" / "index.html");
  EXPECT_EQ(read_file(path), render_report_html(tiny_analysis(), tiny_options()));
  std::filesystem::remove_all(dir);
}

TEST(ReportSvg, TicksAndNumbers) {
  EXPECT_EQ(nice_ticks(0, 1000, 5), (std::vector<double>{0, 200, 400, 600, 800, 1000}));
  EXPECT_EQ(nice_ticks(130, 370, 3), (std::vector<double>{200, 300}));
  EXPECT_EQ(nice_ticks(5, 5), std::vector<double>{5});
  EXPECT_EQ(nice_ceiling(1234), 1500);
  EXPECT_EQ(format_si(0), "0");
  EXPECT_EQ(format_si(1500), "1.5k");
  EXPECT_EQ(format_si(2.5e6), "2.5M");
  EXPECT_EQ(format_si(999.7), "1k");
  EXPECT_EQ(format_si(0.25), "0.25");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_count(12), "12");
  EXPECT_EQ(format_percent(0.4567), "45.7%");
  EXPECT_EQ(escape_html("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(px(12.04), "12");
  EXPECT_EQ(px(-0.01), "0");
  const LinearScale s{0, 10, 100, 200};
  EXPECT_DOUBLE_EQ(s(5), 150);
}

TEST(ReportSvg, DownsampleMeanAveragesGroups) {
  std::vector<double> v = {1, 3, 5, 7, 9};
  EXPECT_EQ(downsample_mean(v, 3), 2u);
  EXPECT_EQ(v, (std::vector<double>{2, 6, 9}));
  std::vector<double> w = {1, 2};
  EXPECT_EQ(downsample_mean(w, 3), 1u);
  EXPECT_EQ(w.size(), 2u);
}

}  // namespace
}  // namespace snr::report
