#include "et/convert/comm_record.h"

#include <algorithm>
#include <cctype>

#include "formats/pytorch/json_input.h"

namespace snr::et_convert {

namespace {

std::string normalize(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == ' ' || c == ':') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  // Variants of one operation: _allgather_base, allgather_into_tensor_coalesced,
  // reduce_scatter_tensor, allreduce_coalesced.
  for (std::string_view suffix : {"coalesced", "base", "intotensor", "tensor"}) {
    if (out.size() > suffix.size() && out.ends_with(suffix)) out.resize(out.size() - suffix.size());
  }
  return out;
}

std::string pg_name_from(std::string_view value, const pytorch::HostTrace& trace) {
  if (auto name = pytorch::json_text_string(value)) return *name;
  std::vector<std::string_view> elements;
  if (pytorch::json_text_elements(value, elements) && !elements.empty()) {
    if (auto name = pytorch::json_text_string(elements[0])) return *name;
  }
  int64_t id = 0;
  if (pytorch::json_text_to_int64(value, id)) {
    for (const auto& group : trace.process_groups) {
      if (group.backend_id == id) return group.pg_name;
    }
    return std::to_string(id);
  }
  return "";
}

}  // namespace

bool is_comm_record(std::string_view host_op_name) { return host_op_name == "record_param_comms"; }

CommKind classify_comm_name(std::string_view name, CollectiveType& collective) {
  const std::string n = normalize(name);
  struct Entry {
    std::string_view name;
    CommKind kind;
    CollectiveType type;
  };
  static constexpr Entry kTable[] = {
      {"allreduce", CommKind::kCollective, CollectiveType::kAllReduce},
      {"allgather", CommKind::kCollective, CollectiveType::kAllGather},
      {"reducescatter", CommKind::kCollective, CollectiveType::kReduceScatter},
      {"alltoall", CommKind::kCollective, CollectiveType::kAllToAll},
      {"alltoallv", CommKind::kCollective, CollectiveType::kAllToAll},
      {"broadcast", CommKind::kCollective, CollectiveType::kBroadcast},
      {"reduce", CommKind::kCollective, CollectiveType::kReduce},
      {"gather", CommKind::kCollective, CollectiveType::kGather},
      {"scatter", CommKind::kCollective, CollectiveType::kScatter},
      {"barrier", CommKind::kCollective, CollectiveType::kBarrier},
      {"send", CommKind::kSend, CollectiveType::kAllReduce},
      {"recv", CommKind::kRecv, CollectiveType::kAllReduce},
      {"wait", CommKind::kWait, CollectiveType::kAllReduce},
  };
  for (const auto& entry : kTable) {
    if (n == entry.name) {
      collective = entry.type;
      return entry.kind;
    }
  }
  return CommKind::kUnknown;
}

bool classify_comm_kernel(std::string_view kernel_name, CommKind& kind, CollectiveType& collective) {
  const auto to_lower = [](unsigned char c) { return static_cast<char>(std::tolower(c)); };
  // Most kernels are not NCCL's: the prefix decides before the (long) name is lowered.
  std::string lower(kernel_name.substr(0, 4));
  std::transform(lower.begin(), lower.end(), lower.begin(), to_lower);
  if (lower != "nccl" && lower != "rccl") return false;
  lower.assign(kernel_name);
  std::transform(lower.begin(), lower.end(), lower.begin(), to_lower);
  struct Entry {
    std::string_view token;
    CommKind kind;
    CollectiveType type;
  };
  // Longer tokens first: "reducescatter" contains "reduce" and "scatter".
  static constexpr Entry kTable[] = {
      {"allreduce", CommKind::kCollective, CollectiveType::kAllReduce},
      {"allgather", CommKind::kCollective, CollectiveType::kAllGather},
      {"reducescatter", CommKind::kCollective, CollectiveType::kReduceScatter},
      {"alltoall", CommKind::kCollective, CollectiveType::kAllToAll},
      {"broadcast", CommKind::kCollective, CollectiveType::kBroadcast},
      {"sendrecv", CommKind::kSend, CollectiveType::kAllReduce},
      {"send", CommKind::kSend, CollectiveType::kAllReduce},
      {"recv", CommKind::kRecv, CollectiveType::kAllReduce},
      {"reduce", CommKind::kCollective, CollectiveType::kReduce},
  };
  for (const auto& entry : kTable) {
    if (lower.find(entry.token) != std::string::npos) {
      kind = entry.kind;
      collective = entry.type;
      return true;
    }
  }
  kind = CommKind::kUnknown;
  return true;
}

CommRecord read_comm_record(const pytorch::HostNode& node, const pytorch::HostTrace& trace) {
  CommRecord record;
  record.input_bytes = pytorch::tensor_bytes(node.inputs);
  record.output_bytes = pytorch::tensor_bytes(node.outputs);
  // The first String input naming a known operation.
  size_t name_index = node.inputs.size();
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const auto& input = node.inputs[i];
    if (input.type != "String") continue;
    auto text = pytorch::json_text_string(input.value);
    if (!text) continue;
    CollectiveType type = CollectiveType::kAllReduce;
    const CommKind kind = classify_comm_name(*text, type);
    if (kind == CommKind::kUnknown) {
      if (record.op_name.empty()) record.op_name = std::move(*text);
      continue;
    }
    record.op_name = std::move(*text);
    record.kind = kind;
    record.collective = type;
    name_index = i;
    break;
  }
  if (name_index == node.inputs.size()) return record;
  int64_t value = 0;
  if (name_index >= 1 && pytorch::json_text_to_int64(node.inputs[name_index - 1].value, value)) {
    record.peer_rank = value;
  }
  if (name_index >= 2) record.pg_name = pg_name_from(node.inputs[name_index - 2].value, trace);
  std::vector<std::string_view> elements;
  if (name_index >= 3 && pytorch::json_text_to_int64(node.inputs[name_index - 3].value, value)) {
    record.seq = value;
  } else if (name_index >= 3 && pytorch::json_text_elements(node.inputs[name_index - 3].value, elements) &&
             !elements.empty() && pytorch::json_text_to_int64(elements[0], value)) {
    record.seq = value;  // newer layout: (seq, is_p2p)
  }
  // world_size is the last Int in both layouts, at least three after the
  // name; newer PyTorch appends a Bool (isAsyncOp) after it.
  size_t last = node.inputs.size();
  while (last > name_index + 3 && node.inputs[last - 1].type == "Bool") --last;
  if (last >= name_index + 4 && node.inputs[last - 1].type == "Int" &&
      pytorch::json_text_to_int64(node.inputs[last - 1].value, value) && value > 0) {
    record.group_size = value;
  }
  return record;
}

CommRecord read_c10d_op(const pytorch::HostNode& node) {
  CommRecord record;
  std::string_view name = node.name;
  if (!name.starts_with("c10d::")) return record;
  name.remove_prefix(6);
  while (name.ends_with("_")) name.remove_suffix(1);
  CollectiveType type = CollectiveType::kAllReduce;
  const CommKind kind = classify_comm_name(name, type);
  // Send/recv ops do not name their peer in their inputs; a barrier moves no data.
  if (kind != CommKind::kCollective || type == CollectiveType::kBarrier) return record;
  record.kind = kind;
  record.collective = type;
  record.op_name = std::string(node.name);
  record.from_c10d_op = true;
  record.input_bytes = pytorch::tensor_bytes(node.inputs);
  record.output_bytes = pytorch::tensor_bytes(node.outputs);
  return record;
}

}  // namespace snr::et_convert
