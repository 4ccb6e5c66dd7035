#include "formats/chakra/attributes.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "formats/chakra/test_traces.h"

namespace snr::chakra {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

TEST(Attributes, SettersUseChakraMemberTypes) {
  auto nodes = testing::sample_nodes();
  const Node& coll = nodes[1];
  EXPECT_EQ(find_attribute(coll, "is_cpu_op")->value_case(), AttributeProto::kBoolVal);
  EXPECT_EQ(find_attribute(coll, "comm_type")->value_case(), AttributeProto::kInt64Val);
  EXPECT_EQ(find_attribute(coll, "comm_size")->value_case(), AttributeProto::kInt64Val);
  EXPECT_EQ(find_attribute(coll, "involved_dim")->value_case(), AttributeProto::kBoolList);
  EXPECT_EQ(find_attribute(coll, "pg_name")->value_case(), AttributeProto::kStringVal);
  EXPECT_EQ(find_attribute(nodes[2], "comm_dst")->value_case(), AttributeProto::kInt32Val);
  EXPECT_EQ(find_attribute(nodes[0], "tensor_size")->value_case(), AttributeProto::kUint64Val);
  EXPECT_EQ(find_attribute(nodes[0], "num_ops")->value_case(), AttributeProto::kInt64Val);
}

TEST(Attributes, ViewReadsConventionalAttributes) {
  auto nodes = testing::sample_nodes();
  NodeView coll(nodes[1]);
  EXPECT_EQ(coll.is_cpu_op(), false);
  EXPECT_EQ(coll.comm_type(), ChakraProtoMsg::ALL_REDUCE);
  EXPECT_EQ(coll.comm_size_bytes(), 1u << 20);
  EXPECT_EQ(coll.pg_name(), "0");
  EXPECT_EQ(coll.involved_dim(), (std::vector<bool>{true, false}));
  EXPECT_TRUE(coll.is_comm());
  NodeView send(nodes[2]);
  EXPECT_EQ(send.comm_dst(), 1);
  EXPECT_EQ(send.comm_tag(), 7);
  EXPECT_EQ(send.is_cpu_op(), std::nullopt);
}

TEST(Attributes, ReadsAnyIntegerMemberLeniently) {
  Node node;
  node.set_id(9);
  auto add = [&](const char* name) {
    auto* a = node.add_attr();
    a->set_name(name);
    return a;
  };
  add("comm_size")->set_fixed64_val(4096);
  add("comm_src")->set_sint32_val(3);
  add("comm_dst")->set_uint64_val(5);
  add("is_cpu_op")->set_int32_val(1);
  add("num_ops")->set_uint32_val(77);
  NodeView view(node);
  EXPECT_EQ(view.comm_size_bytes(), 4096u);
  EXPECT_EQ(view.comm_src(), 3);
  EXPECT_EQ(view.comm_dst(), 5);
  EXPECT_EQ(view.is_cpu_op(), true);
  EXPECT_EQ(view.num_ops(), 77u);
}

TEST(Attributes, UnusableValuesAreErrorsNamingTheNode) {
  Node node;
  node.set_id(42);
  auto* size = node.add_attr();
  size->set_name("comm_size");
  size->set_string_val("big");
  auto* cpu = node.add_attr();
  cpu->set_name("is_cpu_op");
  cpu->set_int64_val(2);
  auto* tensor = node.add_attr();
  tensor->set_name("tensor_size");
  tensor->set_int64_val(-5);
  NodeView view(node);
  auto message = [](auto&& fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { (void)view.comm_size_bytes(); }),
            "node 42: attribute comm_size has string_val where an integer belongs");
  EXPECT_EQ(message([&] { (void)view.is_cpu_op(); }), "node 42: attribute is_cpu_op must be a bool or 0/1, got int64_val 2");
  EXPECT_EQ(message([&] { (void)view.tensor_size_bytes(); }), "node 42: attribute tensor_size is negative (-5)");
}

TEST(Attributes, SetterReplacesInPlace) {
  Node node;
  set_comm_size(node, 1);
  set_comm_tag(node, 2);
  set_comm_size(node, 3);
  ASSERT_EQ(node.attr_size(), 2);
  EXPECT_EQ(node.attr(0).int64_val(), 3);
}

TEST(Attributes, NamesUnknownEnumValues) {
  EXPECT_EQ(node_type_name(ChakraProtoMsg::COMM_COLL_NODE), "COMM_COLL_NODE");
  EXPECT_EQ(node_type_name(42), "NodeType(42)");
  EXPECT_EQ(comm_type_name(ChakraProtoMsg::REDUCE_SCATTER), "REDUCE_SCATTER");
  EXPECT_EQ(comm_type_name(99), "CollectiveCommType(99)");
}

}  // namespace
}  // namespace snr::chakra
