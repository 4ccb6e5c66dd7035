// MSCCLang XML reader: hand-made algorithms read; malformed ones fail with
// the file and line; ASTRA-sim's public ring all-reduce reads.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "formats/msccllang/algorithm.h"

namespace snr::msccllang {
namespace {

using ::testing::HasSubstr;

std::string testdata(const std::string& name) { return std::string(SNR_MSCCLLANG_TESTDATA) + "/" + name; }

std::string text_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string error_of(const std::string& xml) {
  try {
    parse_algorithm(xml, "a.xml");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string edited(const std::string& from, const std::string& to) {
  std::string xml = text_of(testdata("ring_allreduce_3.xml"));
  const size_t at = xml.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return xml.replace(at, from.size(), to);
}

TEST(MsccllangReader, ReadsARingWithDependencies) {
  const Algorithm a = read_algorithm_file(testdata("ring_allreduce_3.xml"));
  EXPECT_EQ(a.collective, "allreduce");
  EXPECT_TRUE(a.inplace);
  ASSERT_EQ(a.gpus.size(), 3u);
  const Threadblock& tb = a.gpus[1].threadblocks[0];
  EXPECT_EQ(tb.send_peer, 2);
  EXPECT_EQ(tb.recv_peer, 0);
  ASSERT_EQ(tb.steps.size(), 6u);
  EXPECT_EQ(tb.steps[1].type, StepType::kRecvReduceSend);
  EXPECT_EQ(tb.steps[2].type, StepType::kRecvReduceCopy);
  EXPECT_TRUE(tb.steps[2].has_dependents);
  const Step& cpy = a.gpus[1].threadblocks[1].steps[0];
  EXPECT_EQ(cpy.type, StepType::kCopy);
  EXPECT_EQ(cpy.dep_threadblock, 0);
  EXPECT_EQ(cpy.dep_step, 2);
  EXPECT_EQ(cpy.dst, Buffer::kScratch);
}

TEST(MsccllangReader, Errors) {
  EXPECT_THAT(error_of(edited("type=\"rrs\"", "type=\"rrx\"")),
              HasSubstr("a.xml:5: <step>: unknown step type 'rrx' (gpu 0, threadblock 0, step 1)"));
  EXPECT_THAT(error_of(edited("cnt=\"1\" depid=\"0\"", "cnt=\"1\" speed=\"2\" depid=\"0\"")),
              HasSubstr("unknown attribute 'speed'"));
  EXPECT_THAT(error_of(edited("srcoff=\"2\" dstbuf", "srcoff=\"3\" dstbuf")),
              HasSubstr("a.xml:5: <step>: source chunks [3, 4) of buffer 'i' are out of range: gpu 0 has 3"));
  EXPECT_THAT(error_of(edited("depid=\"0\" deps=\"2\"", "depid=\"0\" deps=\"9\"")),
              HasSubstr("gpu 0 threadblock 1 step 0 depends on threadblock 0 step 9, which does not exist"));
  EXPECT_THAT(error_of(edited("<step s=\"5\" type=\"r\"", "<step s=\"5\" type=\"nop\"")),
              HasSubstr("gpu 2 sends to gpu 0 on channel 0 (its send #3), but gpu 0 has no matching receive"));
  EXPECT_THAT(error_of(edited("cnt=\"1\"", "cnt=\"x\"")), HasSubstr("'cnt' must be an integer, got \"x\""));
  EXPECT_THAT(error_of(edited("chan=\"0\"", "chan=\"-1\"")),
              HasSubstr("a.xml:3: <tb>: gpu 0 threadblock 0: 'chan' = -1 is not a channel of the algorithm ([0, 1) "
                        "from 'nchannels')"));
  EXPECT_THAT(error_of(edited("<tb id=\"1\" send=\"-1\"", "<tb id=\"1\" send=\"1\"")),
              HasSubstr("a.xml:11: gpu 0: threadblocks 0 and 1 both send to gpu 1 on channel 0 (the MSCCL runtime "
                        "gives a (peer, channel) one connection"));
  EXPECT_THAT(error_of("<algo"), HasSubstr("a.xml:1: not valid XML"));
  EXPECT_THAT(error_of("<mscclang/>"), HasSubstr("the root element is <mscclang>, expected <algo>"));
  // Whatever follows </algo> was dropped by the parser: msccl-tools' PCIe
  // example prints its own failed Check() there; a second algorithm would
  // have been ignored.
  const std::string ring = text_of(testdata("ring_allreduce_3.xml"));
  EXPECT_THAT(error_of(ring + "Check failed: chunk reduced twice\n"),
              HasSubstr("text outside <algo> (\"Check failed: chunk reduced twice\")"));
  EXPECT_THAT(error_of(ring + ring), HasSubstr("a second root element <algo> after <algo>"));
  EXPECT_EQ(error_of(ring + "\n<!-- generated -->\n  \n"), "no error");  // comments and blanks are fine
  EXPECT_THAT(error_of(""), HasSubstr("a.xml: no <algo> element"));
}

// MSCCLang's all-pairs algorithms for 32 GPUs are 10 MB of one-step lines;
// every step records its line, found from one index of line starts (the
// reading time is in docs/benchmarks.md, not asserted here).
TEST(MsccllangReader, ReadsTenMegabytesWithLinesRight) {
  constexpr int kSteps = 50000;
  std::string xml =
      "<algo name=\"big\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"1\" ngpus=\"2\" coll=\"custom\" "
      "inplace=\"0\">\n";
  for (int gpu = 0; gpu < 2; ++gpu) {
    xml += "<gpu id=\"" + std::to_string(gpu) + "\" i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\">\n";
    xml += "<tb id=\"0\" send=\"" + std::to_string(gpu == 0 ? 1 : -1) + "\" recv=\"" +
           std::to_string(gpu == 0 ? -1 : 0) + "\" chan=\"0\">\n";
    for (int s = 0; s < kSteps; ++s) {
      xml += "  <step s=\"" + std::to_string(s) + "\" type=\"" + (gpu == 0 ? "s" : "r") +
             "\" srcbuf=\"i\" srcoff=\"0\" dstbuf=\"o\" dstoff=\"0\" cnt=\"1\" depid=\"-1\" deps=\"-1\" "
             "hasdep=\"0\"/>\n";
    }
    xml += "</tb>\n</gpu>\n";
  }
  xml += "</algo>\n";
  ASSERT_GT(xml.size(), 10u << 20);
  const Algorithm a = parse_algorithm(xml, "big.xml");
  // Line 1 <algo>, 2 <gpu>, 3 <tb>, then the steps; GPU 1's <tb> follows </tb>, </gpu>, <gpu>.
  EXPECT_EQ(a.gpus[1].threadblocks[0].line, 3u + kSteps + 4u);
  EXPECT_EQ(a.gpus[1].threadblocks[0].steps.back().line, 3u + kSteps + 4u + kSteps);
  const std::string last = "<step s=\"" + std::to_string(kSteps - 1) + "\" type=\"r\"";
  xml.replace(xml.rfind(last), last.size(), "<step s=\"" + std::to_string(kSteps - 1) + "\" type=\"nop\"");
  EXPECT_THAT(error_of(xml), HasSubstr(fmt::format("a.xml:{}: gpu 0 sends to gpu 1 on channel 0 (its send #{})",
                                                   3 + kSteps, kSteps - 1)));
}

TEST(MsccllangReader, AstraSimCustomCollectiveReads) {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  const std::filesystem::path path = std::filesystem::path(dir ? dir : "") / "astra-sim/system/custom_collectives/"
                                     "custom_ring_allreduce_8npus_1MB/custom_allreduce.xml";
  if (!dir || !std::filesystem::exists(path)) GTEST_SKIP() << "no ../shared/data/astra-sim";
  const Algorithm a = read_algorithm_file(path.string());
  EXPECT_EQ(a.gpus.size(), 8u);
  EXPECT_EQ(a.protocol, "LL128");
  if (std::getenv("SNR_UPDATE_GOLDEN")) {
    std::ofstream(testdata("custom_allreduce.summary.txt"), std::ios::binary) << summarize(a);
  }
  EXPECT_EQ(summarize(a), text_of(testdata("custom_allreduce.summary.txt")));
}

}  // namespace
}  // namespace snr::msccllang
