// MSCCLang XML through the same representation and checker: staging FIFOs
// with credits, LL packets without "full" semaphores, cross-threadblock
// dependencies, and ASTRA-sim's public ring all-reduce.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "dsim/loadstore/data_check.h"
#include "dsim/loadstore/lower_msccllang.h"

namespace snr::dsim::loadstore {
namespace {

using ::testing::HasSubstr;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

msccllang::Algorithm load(const std::string& name, const std::string& from = "", const std::string& to = "") {
  std::string xml = read_text(std::string(SNR_MSCCLLANG_TESTDATA) + "/" + name);
  if (!from.empty()) xml.replace(xml.find(from), from.size(), to);
  return msccllang::parse_algorithm(xml, name);
}

DataCheckResult check(const msccllang::Algorithm& a, uint64_t bytes, Program* out = nullptr) {
  MsccllangLowering options;
  options.input_bytes = bytes;
  Program program = lower_msccllang(a, options);
  DataCheckOptions check;
  check.collective = msccllang_collective(a);
  check.inplace = msccllang_buffers_alias(a);
  DataCheckResult result = check_data_movement(program, check);
  if (out) *out = std::move(program);
  return result;
}

std::string joined(const DataCheckResult& r) {
  std::string text;
  for (const auto& e : r.errors) text += e + "\n";
  return text;
}

TEST(LowerMsccllang, RingAllReduceIsCorrect) {
  const auto a = load("ring_allreduce_3.xml");
  Program p;
  const DataCheckResult result = check(a, 48, &p);
  EXPECT_TRUE(result.ok()) << joined(result);
  EXPECT_TRUE(result.collective_checked);
  // gpu 0 threadblock 0 step 1 (rrs): wait for a full slot, take a credit for the next hop,
  // load slot + own chunk, reduce, store to gpu 1's staging, return the credit, mark gpu 1's slot full.
  const Workgroup& wg = p.workgroups[0];
  std::vector<OpKind> kinds;
  for (uint32_t i = wg.first_op; i < wg.first_op + wg.op_count && p.origins[i].op_index <= 1; ++i) {
    if (p.origins[i].op_index == 1) kinds.push_back(p.ops[i].kind);
  }
  EXPECT_EQ(kinds, (std::vector<OpKind>{OpKind::kSemaphoreAcquire, OpKind::kSemaphoreAcquire, OpKind::kLoad,
                                        OpKind::kReduce, OpKind::kStore, OpKind::kSemaphoreRelease,
                                        OpKind::kSemaphoreRelease}));
  EXPECT_EQ(traffic(p)[0].remote_store_bytes, 4u * 16u);  // four sends of one 16-byte chunk
}

TEST(LowerMsccllang, LlProtocolUsesPacketsInsteadOfFullSemaphores) {
  const auto a = load("allgather_ll_2.xml");
  Program p;
  const DataCheckResult result = check(a, 16, &p);
  EXPECT_TRUE(result.ok()) << joined(result);
  const auto t = traffic(p);
  EXPECT_EQ(t[0].remote_store_bytes, 16u);
  EXPECT_EQ(t[0].wire_bytes_remote, 32u);
  for (const Semaphore& s : p.semaphores) EXPECT_THAT(p.names[s.name], HasSubstr("credits"));
}

TEST(LowerMsccllang, MissingDependencyIsARace) {
  // Without waiting for step 2, the copy may read the chunk before it is reduced.
  const auto a = load("ring_allreduce_3.xml", "depid=\"0\" deps=\"2\"", "depid=\"-1\" deps=\"-1\"");
  const std::string errors = joined(check(a, 48));
  EXPECT_THAT(errors, HasSubstr("gpu 0 threadblock 0 step 2 ('rrc') overwrites input bytes [16, 32) of gpu 0 that "
                                "gpu 0 threadblock 1 step 0 ('cpy') also accesses, with no synchronization in between"));
}

TEST(LowerMsccllang, AstraSimRingAllReduceMovesExactlyAnAllReduce) {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  const std::filesystem::path path = std::filesystem::path(dir ? dir : "") / "astra-sim/system/custom_collectives/"
                                     "custom_ring_allreduce_8npus_1MB/custom_allreduce.xml";
  if (!dir || !std::filesystem::exists(path)) GTEST_SKIP() << "no ../shared/data/astra-sim";
  const auto a = msccllang::read_algorithm_file(path.string());
  const DataCheckResult result = check(a, smallest_exact_input_bytes(a));
  EXPECT_TRUE(result.ok()) << joined(result);
  EXPECT_TRUE(result.collective_checked);
  MsccllangLowering options;
  options.input_bytes = 1 << 20;
  const std::string summary = summarize(lower_msccllang(a, options));
  const std::string golden = std::string(SNR_LOADSTORE_TESTDATA) + "/custom_allreduce.lowered.txt";
  if (std::getenv("SNR_UPDATE_GOLDEN")) std::ofstream(golden, std::ios::binary) << summary;
  EXPECT_EQ(summary, read_text(golden));
}

// In place as MSCCLang defines it per collective: an all-gather that names
// no input chunks starts from its slice of the output, a reduce-scatter
// without output chunks ends in its slice of the input (MSCCLang writes it
// "reduce_scatter"); a custom collective's input and output stay apart.
TEST(LowerMsccllang, InPlaceBuffersFollowTheCollective) {
  const auto gather = load("ring_allgather_inplace_3.xml");
  EXPECT_TRUE(msccllang_buffers_alias(gather));
  EXPECT_EQ(smallest_exact_input_bytes(gather), 16u);  // one output chunk per GPU
  Program p;
  DataCheckResult result = check(gather, 16, &p);
  EXPECT_TRUE(result.ok() && result.collective_checked) << joined(result);
  EXPECT_EQ(p.gpus[1].input_bytes, 16u);
  EXPECT_EQ(p.gpus[1].output_bytes, 48u);
  // GPU 2 relays GPU 1's chunk (output chunk 1) where GPU 0's belongs: wrong data.
  const auto wrong_gather = load("ring_allgather_inplace_3.xml",
                                 R"(type="rcs" srcbuf="o" srcoff="1" dstbuf="o" dstoff="1")",
                                 R"(type="rcs" srcbuf="o" srcoff="1" dstbuf="o" dstoff="0")");
  EXPECT_THAT(joined(check(wrong_gather, 16)), HasSubstr("but allgather needs"));

  const auto scatter = load("ring_reducescatter_inplace_3.xml");
  EXPECT_EQ(msccllang_collective(scatter), "reducescatter");
  result = check(scatter, 48, &p);
  EXPECT_TRUE(result.ok() && result.collective_checked) << joined(result);
  EXPECT_EQ(p.gpus[0].output_bytes, 16u);

  // Receives into the output while the input is sent: no race, as a custom
  // collective's buffers stay apart even with inplace="1".
  const auto custom = load("exchange_custom_inplace_2.xml");
  EXPECT_FALSE(msccllang_buffers_alias(custom));
  result = check(custom, 16);
  EXPECT_TRUE(result.ok()) << joined(result);
  EXPECT_FALSE(result.collective_checked);
}

}  // namespace
}  // namespace snr::dsim::loadstore
