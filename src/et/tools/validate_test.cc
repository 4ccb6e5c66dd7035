#include "et/tools/validate.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/file_io.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace snr::et {
namespace {

namespace fs = std::filesystem;
using chakra::testing::make_node;

class ValidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snr_validate_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ValidationReport validate(const std::vector<ChakraProtoMsg::Node>& nodes) {
    write_file_atomic(dir_ / "t.0.et", chakra::encode_trace(chakra::testing::sample_metadata(), nodes));
    return validate_traces(chakra::resolve_trace_argument(dir_ / "t"));
  }
  static std::vector<std::string> messages(const ValidationReport& report) {
    std::vector<std::string> out;
    for (const auto& issue : report.issues) out.push_back(issue.message.substr(issue.message.find(": ") + 2));
    return out;
  }
  fs::path dir_;
};

TEST_F(ValidateTest, SampleTraceIsClean) {
  auto report = validate(chakra::testing::sample_nodes());
  EXPECT_EQ(report.errors, 0u);
  EXPECT_EQ(report.warnings, 0u);
  ASSERT_EQ(report.ranks.size(), 1u);
  EXPECT_EQ(report.ranks[0].nodes_by_type.at("COMP_NODE"), 2u);
  EXPECT_EQ(report.ranks[0].collectives, 1u);
  EXPECT_NE(format_validation_report(report).find("OK: 1 rank(s), 0 error(s), 0 warning(s)"), std::string::npos);
}

TEST_F(ValidateTest, DependencyProblemsAreNamed) {
  auto report = validate({make_node(1, "a", ChakraProtoMsg::COMP_NODE, {2}),
                          make_node(2, "b", ChakraProtoMsg::COMP_NODE, {1}),
                          make_node(3, "c", ChakraProtoMsg::COMP_NODE, {3, 77}),
                          make_node(3, "dup", ChakraProtoMsg::COMP_NODE, {}, {99})});
  EXPECT_EQ(messages(report),
            (std::vector<std::string>{
                "duplicate node id 3 (message 4 reuses it)",
                "node 3 depends on itself",
                "node 3 depends on node 77, which is not in the trace",
                "dependency cycle: 2 node(s) can never issue; cycle (each depends on the next): 1 <- 2 <- 1",
                "node 3 depends on node 99, which is not in the trace (through ctrl_deps, which ASTRA-sim ignores)"}));
  EXPECT_EQ(report.errors, 4u);
  EXPECT_EQ(report.warnings, 1u);
}

TEST_F(ValidateTest, CommAttributeProblemsAreNamed) {
  auto coll = make_node(1, "ar", ChakraProtoMsg::COMM_COLL_NODE);
  auto send = make_node(2, "send", ChakraProtoMsg::COMM_SEND_NODE);
  chakra::set_comm_size(send, -4);
  chakra::set_comm_dst(send, 1);
  auto recv = make_node(3, "recv", ChakraProtoMsg::COMM_RECV_NODE);
  chakra::set_comm_size(recv, 4);
  chakra::set_comm_tag(recv, 1);
  auto report = validate({coll, send, recv});
  EXPECT_EQ(messages(report), (std::vector<std::string>{
                                  "node 1: COMM_COLL_NODE without a comm_type attribute",
                                  "node 1: COMM_COLL_NODE without a comm_size attribute",
                                  "node 2: attribute comm_size is negative (-4)",
                                  "node 3: COMM_RECV_NODE without a comm_src attribute",
                              }));
}

// Chakra's generator writes a BARRIER without comm_size; a barrier moves
// no data of its own. Any other collective needs its size.
TEST_F(ValidateTest, ABarrierNeedsNoSize) {
  auto barrier = make_node(1, "barrier", ChakraProtoMsg::COMM_COLL_NODE);
  chakra::set_comm_type(barrier, ChakraProtoMsg::BARRIER);
  auto all_reduce = make_node(2, "ar", ChakraProtoMsg::COMM_COLL_NODE);
  chakra::set_comm_type(all_reduce, ChakraProtoMsg::ALL_REDUCE);
  EXPECT_EQ(messages(validate({barrier, all_reduce})),
            (std::vector<std::string>{"node 2: COMM_COLL_NODE without a comm_size attribute"}));
}

TEST_F(ValidateTest, TruncatedFileIsAnErrorWithOffset) {
  std::string bytes = chakra::encode_trace(chakra::testing::sample_metadata(), chakra::testing::sample_nodes());
  write_file_atomic(dir_ / "t.0.et", bytes.substr(0, bytes.size() - 2));
  auto report = validate_traces(chakra::resolve_trace_argument(dir_ / "t.0.et"));
  EXPECT_EQ(report.errors, 1u);
  ASSERT_EQ(report.issues.size(), 1u);
  EXPECT_NE(report.issues[0].message.find("message 6: truncated message"), std::string::npos) << report.issues[0].message;
  EXPECT_EQ(report.ranks[0].skipped_records, 1u);
  EXPECT_EQ(report.ranks[0].nodes, 5u);
}

}  // namespace
}  // namespace snr::et
