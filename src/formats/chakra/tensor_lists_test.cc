#include "formats/chakra/tensor_lists.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace snr::chakra {
namespace {

TEST(TensorLists, SizesAsGeneratorsWriteThem) {
  EXPECT_EQ(parse_tensor_bytes("1048576"), 1048576u);
  EXPECT_EQ(parse_tensor_bytes("1048576.0"), 1048576u);  // Symbolic Tensor Graph's sympy floats
  EXPECT_EQ(parse_tensor_bytes("12.75"), 12u);           // the fraction is dropped, as stoull does
  EXPECT_EQ(parse_tensor_bytes("1e6"), 1000000u);        // an exponent is one
  EXPECT_EQ(parse_tensor_bytes("0"), 0u);
  EXPECT_EQ(parse_tensor_bytes("1125899906842624"), uint64_t{1} << 50);
  for (const char* bad : {"", "-1", "+5", "abc", "12abc", "1125899906842625", "1e300", "nan", "inf", " 12", "0x10"}) {
    EXPECT_EQ(parse_tensor_bytes(bad), std::nullopt) << bad;
  }
}

TEST(TensorLists, ListsRoundTripAndAbsentOrEmptyDiffer) {
  ChakraProtoMsg::Node node;
  node.set_id(3);
  EXPECT_EQ(tensor_list(node, attr_name::kInputs), std::nullopt);
  // The generator writes a node without outputs as a bare attribute.
  node.add_attr()->set_name("outputs");
  ASSERT_TRUE(tensor_list(node, attr_name::kOutputs).has_value());
  EXPECT_TRUE(tensor_list(node, attr_name::kOutputs)->empty());
  set_tensor_list(node, attr_name::kInputs, {{"x", 64}, {"w", 4096}});
  set_tensor_list(node, attr_name::kOutputs, {{"y", 128}});
  const auto inputs = tensor_list(node, attr_name::kInputs);
  ASSERT_TRUE(inputs.has_value());
  ASSERT_EQ(inputs->size(), 2u);
  EXPECT_EQ((*inputs)[1].name, "w");
  EXPECT_EQ((*inputs)[1].bytes, 4096u);
  ASSERT_EQ(tensor_list(node, attr_name::kOutputs)->size(), 1u);
  EXPECT_EQ(node.attr_size(), 2);  // the bare "outputs" was replaced, not joined
}

TEST(TensorLists, BadListsNameTheAttributeAndEntry) {
  ChakraProtoMsg::Node node;
  auto* attribute = node.add_attr();
  attribute->set_name("inputs");
  const auto expect_error = [&](const std::string& text) {
    try {
      (void)tensor_list(node, attr_name::kInputs);
      ADD_FAILURE() << "accepted; expected: " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  attribute->mutable_string_list()->add_values("x");
  expect_error("'inputs' holds 1 strings");
  attribute->mutable_string_list()->add_values("-4");
  expect_error("tensor 'x' has size '-4'");
}

}  // namespace
}  // namespace snr::chakra
