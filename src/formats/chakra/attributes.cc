#include "formats/chakra/attributes.h"

#include <limits>

#include <fmt/format.h>

#include "common/error.h"

namespace snr::chakra {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::Node;

const AttributeProto* find_attribute(const Node& node, std::string_view name) {
  for (const auto& attribute : node.attr()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

std::optional<int64_t> attribute_int64(const AttributeProto& a) {
  auto from_unsigned = [](uint64_t v) -> std::optional<int64_t> {
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(v);
  };
  switch (a.value_case()) {
    case AttributeProto::kInt32Val: return a.int32_val();
    case AttributeProto::kInt64Val: return a.int64_val();
    case AttributeProto::kUint32Val: return a.uint32_val();
    case AttributeProto::kUint64Val: return from_unsigned(a.uint64_val());
    case AttributeProto::kSint32Val: return a.sint32_val();
    case AttributeProto::kSint64Val: return a.sint64_val();
    case AttributeProto::kFixed32Val: return a.fixed32_val();
    case AttributeProto::kFixed64Val: return from_unsigned(a.fixed64_val());
    case AttributeProto::kSfixed32Val: return a.sfixed32_val();
    case AttributeProto::kSfixed64Val: return a.sfixed64_val();
    case AttributeProto::kBoolVal: return a.bool_val() ? 1 : 0;
    default: return std::nullopt;
  }
}

std::string_view attribute_kind(const AttributeProto& attribute) {
  if (attribute.value_case() == AttributeProto::VALUE_NOT_SET) return "unset";
  const auto* field = AttributeProto::descriptor()->FindFieldByNumber(attribute.value_case());
  return field != nullptr ? std::string_view(field->name()) : std::string_view("unknown");
}

NodeView::NodeView(const Node& node) : node_(node) {
  static constexpr std::string_view kNames[kSlotCount] = {
      attr_name::kIsCpuOp,  attr_name::kNumOps,  attr_name::kTensorSize, attr_name::kCommType,
      attr_name::kCommSize, attr_name::kCommSrc, attr_name::kCommDst,    attr_name::kCommTag,
      attr_name::kCommPriority, attr_name::kPgName, attr_name::kInvolvedDim};
  for (const auto& attribute : node.attr()) {
    const std::string& name = attribute.name();
    // Attribute names all start with 'c', 'i', 'n', 't' or 'p'; a cheap
    // first-byte check keeps the scan fast on nodes with many other attributes.
    if (name.empty()) continue;
    for (int slot = 0; slot < kSlotCount; ++slot) {
      if (slots_[slot] == nullptr && name == kNames[slot]) {
        slots_[slot] = &attribute;
        break;
      }
    }
  }
}

std::optional<int64_t> NodeView::signed_value(Slot slot, std::string_view name) const {
  const AttributeProto* a = slots_[slot];
  if (a == nullptr) return std::nullopt;
  auto value = attribute_int64(*a);
  if (!value) {
    throw Error(fmt::format("node {}: attribute {} has {} where an integer belongs", node_.id(), name,
                            attribute_kind(*a)));
  }
  return value;
}

std::optional<uint64_t> NodeView::unsigned_value(Slot slot, std::string_view name) const {
  const AttributeProto* a = slots_[slot];
  if (a == nullptr) return std::nullopt;
  if (a->value_case() == AttributeProto::kUint64Val) return a->uint64_val();
  if (a->value_case() == AttributeProto::kFixed64Val) return a->fixed64_val();
  auto value = signed_value(slot, name);
  if (*value < 0) {
    throw Error(fmt::format("node {}: attribute {} is negative ({})", node_.id(), name, *value));
  }
  return static_cast<uint64_t>(*value);
}

std::optional<bool> NodeView::is_cpu_op() const {
  const AttributeProto* a = slots_[kIsCpuOp];
  if (a == nullptr) return std::nullopt;
  auto value = attribute_int64(*a);
  if (!value || (*value != 0 && *value != 1)) {
    throw Error(fmt::format("node {}: attribute is_cpu_op must be a bool or 0/1, got {}{}", node_.id(),
                            attribute_kind(*a), value ? fmt::format(" {}", *value) : ""));
  }
  return *value == 1;
}

std::optional<uint64_t> NodeView::num_ops() const { return unsigned_value(kNumOps, attr_name::kNumOps); }
std::optional<uint64_t> NodeView::tensor_size_bytes() const {
  return unsigned_value(kTensorSize, attr_name::kTensorSize);
}
std::optional<int64_t> NodeView::comm_type() const { return signed_value(kCommType, attr_name::kCommType); }
std::optional<uint64_t> NodeView::comm_size_bytes() const {
  return unsigned_value(kCommSize, attr_name::kCommSize);
}
std::optional<int64_t> NodeView::comm_src() const { return signed_value(kCommSrc, attr_name::kCommSrc); }
std::optional<int64_t> NodeView::comm_dst() const { return signed_value(kCommDst, attr_name::kCommDst); }
std::optional<int64_t> NodeView::comm_tag() const { return signed_value(kCommTag, attr_name::kCommTag); }
std::optional<int64_t> NodeView::comm_priority() const {
  return signed_value(kCommPriority, attr_name::kCommPriority);
}

std::optional<std::string> NodeView::pg_name() const {
  const AttributeProto* a = slots_[kPgName];
  if (a == nullptr) return std::nullopt;
  if (a->value_case() == AttributeProto::kStringVal) return a->string_val();
  if (auto number = attribute_int64(*a)) return std::to_string(*number);  // older traces: numeric ids
  throw Error(fmt::format("node {}: attribute pg_name has {} where a string belongs", node_.id(),
                          attribute_kind(*a)));
}

std::optional<std::vector<bool>> NodeView::involved_dim() const {
  const AttributeProto* a = slots_[kInvolvedDim];
  if (a == nullptr) return std::nullopt;
  std::vector<bool> dims;
  if (a->value_case() == AttributeProto::kBoolList) {
    dims.assign(a->bool_list().values().begin(), a->bool_list().values().end());
    return dims;
  }
  auto append_all = [&](const auto& values) {
    for (auto v : values) {
      if (v != 0 && v != 1) {
        throw Error(fmt::format("node {}: attribute involved_dim has value {}, expected 0/1", node_.id(), v));
      }
      dims.push_back(v == 1);
    }
  };
  switch (a->value_case()) {
    case AttributeProto::kInt32List: append_all(a->int32_list().values()); break;
    case AttributeProto::kInt64List: append_all(a->int64_list().values()); break;
    case AttributeProto::kUint32List: append_all(a->uint32_list().values()); break;
    case AttributeProto::kUint64List: append_all(a->uint64_list().values()); break;
    default:
      throw Error(fmt::format("node {}: attribute involved_dim has {} where a bool_list belongs", node_.id(),
                              attribute_kind(*a)));
  }
  return dims;
}

bool NodeView::is_comm() const {
  auto t = node_.type();
  return t == ChakraProtoMsg::COMM_SEND_NODE || t == ChakraProtoMsg::COMM_RECV_NODE ||
         t == ChakraProtoMsg::COMM_COLL_NODE;
}
bool NodeView::is_compute() const { return node_.type() == ChakraProtoMsg::COMP_NODE; }

namespace {
AttributeProto& attribute_for_update(Node& node, std::string_view name) {
  for (auto& attribute : *node.mutable_attr()) {
    if (attribute.name() == name) return attribute;
  }
  auto* added = node.add_attr();
  added->set_name(std::string(name));
  return *added;
}
}  // namespace

void set_is_cpu_op(Node& node, bool value) { attribute_for_update(node, attr_name::kIsCpuOp).set_bool_val(value); }
void set_num_ops(Node& node, int64_t value) { attribute_for_update(node, attr_name::kNumOps).set_int64_val(value); }
void set_tensor_size(Node& node, uint64_t bytes) {
  attribute_for_update(node, attr_name::kTensorSize).set_uint64_val(bytes);
}
void set_comm_type(Node& node, ChakraProtoMsg::CollectiveCommType type) {
  attribute_for_update(node, attr_name::kCommType).set_int64_val(type);
}
void set_comm_size(Node& node, int64_t bytes) {
  attribute_for_update(node, attr_name::kCommSize).set_int64_val(bytes);
}
void set_comm_src(Node& node, int32_t rank) { attribute_for_update(node, attr_name::kCommSrc).set_int32_val(rank); }
void set_comm_dst(Node& node, int32_t rank) { attribute_for_update(node, attr_name::kCommDst).set_int32_val(rank); }
void set_comm_tag(Node& node, int32_t tag) { attribute_for_update(node, attr_name::kCommTag).set_int32_val(tag); }
void set_comm_priority(Node& node, int32_t priority) {
  attribute_for_update(node, attr_name::kCommPriority).set_int32_val(priority);
}
void set_pg_name(Node& node, const std::string& name) {
  attribute_for_update(node, attr_name::kPgName).set_string_val(name);
}
void set_involved_dim(Node& node, const std::vector<bool>& dims) {
  auto* list = attribute_for_update(node, attr_name::kInvolvedDim).mutable_bool_list();
  list->clear_values();
  for (bool d : dims) list->add_values(d);
}

std::string node_type_name(int type) {
  if (ChakraProtoMsg::NodeType_IsValid(type)) {
    return ChakraProtoMsg::NodeType_Name(static_cast<ChakraProtoMsg::NodeType>(type));
  }
  return fmt::format("NodeType({})", type);
}

std::string comm_type_name(int64_t type) {
  if (type >= std::numeric_limits<int>::min() && type <= std::numeric_limits<int>::max() &&
      ChakraProtoMsg::CollectiveCommType_IsValid(static_cast<int>(type))) {
    return ChakraProtoMsg::CollectiveCommType_Name(static_cast<ChakraProtoMsg::CollectiveCommType>(type));
  }
  return fmt::format("CollectiveCommType({})", type);
}

}  // namespace snr::chakra
