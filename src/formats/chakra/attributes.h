// Node attribute conventions shared by Chakra's tools and ASTRA-sim, with a
// typed view over them. Writers use the member types Chakra's converter and
// ASTRA-sim's feeder use (table in docs/formats/chakra.md); readers are
// lenient: any integer member (signed, unsigned, zigzag, fixed) is accepted
// for an integer attribute when the value fits, and is_cpu_op accepts a bool
// or an integer 0/1. A present attribute of an unusable kind (a string where
// a number belongs, a negative comm_size) is an snr::Error naming the node id
// and the attribute, never a silent default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/chakra/et_def.pb.h"

namespace snr::chakra {

namespace attr_name {
inline constexpr std::string_view kIsCpuOp = "is_cpu_op";
inline constexpr std::string_view kNumOps = "num_ops";
inline constexpr std::string_view kTensorSize = "tensor_size";
inline constexpr std::string_view kCommType = "comm_type";
inline constexpr std::string_view kCommSize = "comm_size";
inline constexpr std::string_view kCommSrc = "comm_src";
inline constexpr std::string_view kCommDst = "comm_dst";
inline constexpr std::string_view kCommTag = "comm_tag";
inline constexpr std::string_view kCommPriority = "comm_priority";
inline constexpr std::string_view kPgName = "pg_name";
inline constexpr std::string_view kInvolvedDim = "involved_dim";
}  // namespace attr_name

// First attribute named `name`, or nullptr.
const ChakraProtoMsg::AttributeProto* find_attribute(const ChakraProtoMsg::Node& node,
                                                     std::string_view name);

// The value of any integer or bool member as a signed 64-bit integer;
// nullopt when the member is not an integer kind or the value does not fit.
std::optional<int64_t> attribute_int64(const ChakraProtoMsg::AttributeProto& attribute);
// Name of the oneof member that is set ("int64_val", ...), "unset" if none.
std::string_view attribute_kind(const ChakraProtoMsg::AttributeProto& attribute);

// Typed, lenient access to one node's conventional attributes. Scans the
// attribute list once on construction; the node must outlive the view.
class NodeView {
 public:
  explicit NodeView(const ChakraProtoMsg::Node& node);

  [[nodiscard]] const ChakraProtoMsg::Node& node() const { return node_; }
  [[nodiscard]] uint64_t id() const { return node_.id(); }

  // nullopt when absent; snr::Error when present but unusable.
  [[nodiscard]] std::optional<bool> is_cpu_op() const;
  [[nodiscard]] std::optional<uint64_t> num_ops() const;
  [[nodiscard]] std::optional<uint64_t> tensor_size_bytes() const;
  // The raw value: may be outside CollectiveCommType for newer schemas.
  [[nodiscard]] std::optional<int64_t> comm_type() const;
  [[nodiscard]] std::optional<uint64_t> comm_size_bytes() const;
  [[nodiscard]] std::optional<int64_t> comm_src() const;
  [[nodiscard]] std::optional<int64_t> comm_dst() const;
  [[nodiscard]] std::optional<int64_t> comm_tag() const;
  [[nodiscard]] std::optional<int64_t> comm_priority() const;
  [[nodiscard]] std::optional<std::string> pg_name() const;
  [[nodiscard]] std::optional<std::vector<bool>> involved_dim() const;

  [[nodiscard]] bool is_comm() const;
  [[nodiscard]] bool is_compute() const;

 private:
  enum Slot : int { kIsCpuOp, kNumOps, kTensorSize, kCommType, kCommSize, kCommSrc, kCommDst,
                    kCommTag, kCommPriority, kPgName, kInvolvedDim, kSlotCount };
  [[nodiscard]] std::optional<int64_t> signed_value(Slot slot, std::string_view name) const;
  [[nodiscard]] std::optional<uint64_t> unsigned_value(Slot slot, std::string_view name) const;

  const ChakraProtoMsg::Node& node_;
  const ChakraProtoMsg::AttributeProto* slots_[kSlotCount] = {};
};

// Setters with Chakra's member types. Each replaces an existing attribute of
// the same name (keeping its position) or appends one.
void set_is_cpu_op(ChakraProtoMsg::Node& node, bool value);           // bool_val
void set_num_ops(ChakraProtoMsg::Node& node, int64_t value);          // int64_val
void set_tensor_size(ChakraProtoMsg::Node& node, uint64_t bytes);     // uint64_val
void set_comm_type(ChakraProtoMsg::Node& node, ChakraProtoMsg::CollectiveCommType type);  // int64_val
void set_comm_size(ChakraProtoMsg::Node& node, int64_t bytes);        // int64_val
void set_comm_src(ChakraProtoMsg::Node& node, int32_t rank);          // int32_val
void set_comm_dst(ChakraProtoMsg::Node& node, int32_t rank);          // int32_val
void set_comm_tag(ChakraProtoMsg::Node& node, int32_t tag);           // int32_val
void set_comm_priority(ChakraProtoMsg::Node& node, int32_t priority); // int32_val
void set_pg_name(ChakraProtoMsg::Node& node, const std::string& name);           // string_val
void set_involved_dim(ChakraProtoMsg::Node& node, const std::vector<bool>& dims);  // bool_list

// Names for messages and tables: "COMP_NODE", "ALL_REDUCE"; unknown values
// come back as "NodeType(42)" / "CollectiveCommType(42)".
std::string node_type_name(int type);
std::string comm_type_name(int64_t type);

// Whether a collective of `comm_type` needs comm_size: every one but a
// barrier, which moves no data of its own (Chakra's generator writes none;
// snr sim runs one as a one-byte all-reduce).
[[nodiscard]] constexpr bool collective_needs_size(int64_t comm_type) {
  return comm_type != ChakraProtoMsg::BARRIER;
}

}  // namespace snr::chakra
