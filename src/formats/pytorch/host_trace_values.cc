#include "formats/pytorch/host_trace_values.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "common/cli_numbers.h"
#include "common/error.h"
#include "common/json_input.h"
#include "formats/pytorch/json_input.h"

namespace snr::pytorch {
namespace {

struct DtypeSize {
  std::string_view name;
  uint64_t bytes;
};

// Names as c10::toString(ScalarType) prints them inside "Tensor(...)".
constexpr DtypeSize kDtypeSizes[] = {
    {"float", 4},          {"double", 8},         {"c10::Half", 2},       {"c10::BFloat16", 2},
    {"half", 2},           {"bfloat16", 2},       {"long int", 8},        {"long", 8},
    {"int64_t", 8},        {"int", 4},            {"short int", 2},       {"short", 2},
    {"signed char", 1},    {"unsigned char", 1},  {"bool", 1},            {"c10::complex<float>", 8},
    {"c10::complex<double>", 16}, {"c10::complex<c10::Half>", 4},
    {"c10::Float8_e4m3fn", 1}, {"c10::Float8_e5m2", 1}, {"c10::Float8_e4m3fnuz", 1},
    {"c10::Float8_e5m2fnuz", 1}, {"c10::qint8", 1}, {"c10::quint8", 1}, {"c10::qint32", 4},
    {"unsigned short", 2}, {"unsigned int", 4}, {"unsigned long", 8},
};

// The comma-separated element types of "GenericList[a,b]", split at top
// level one at a time (an empty part in the middle counts, a trailing one
// does not).
class ElementTypes {
 public:
  explicit ElementTypes(std::string_view inner) : inner_(inner) {}

  bool next(std::string_view& part) {
    if (start_ >= inner_.size()) return false;
    int depth = 0;
    for (size_t i = start_; i < inner_.size(); ++i) {
      const char c = inner_[i];
      if (c == '[' || c == '(' || c == '<') ++depth;
      if (c == ']' || c == ')' || c == '>') --depth;
      if (c == ',' && depth == 0) {
        part = inner_.substr(start_, i - start_);
        start_ = i + 1;
        return true;
      }
    }
    part = inner_.substr(start_);
    start_ = inner_.size();
    return true;
  }

 private:
  std::string_view inner_;
  size_t start_ = 0;
};

// Plain digits (at most 19: no overflow) at `at` of `text`, then `stop`.
bool take_digits(std::string_view text, size_t& at, char stop, uint64_t& out) {
  const size_t start = at;
  out = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') out = out * 10 + static_cast<uint64_t>(text[at++] - '0');
  if (at == start || at - start > 19 || at >= text.size() || text[at] != stop) return false;
  ++at;
  return true;
}

// The usual tensor value, [tensor_id,storage_id,offset,num_elem,elem_bytes]
// with an optional device string without escapes, read in one pass; false
// for any other form, which tensor_from_value then splits in general.
bool read_plain_tensor(std::string_view value, uint64_t (&numbers)[5], std::string_view& device) {
  size_t at = 1;
  if (value.size() < 2 || value.front() != '[') return false;
  for (size_t i = 0; i < 4; ++i) {
    if (!take_digits(value, at, ',', numbers[i])) return false;
  }
  const size_t last = at;
  if (take_digits(value, at, ']', numbers[4])) {
    device = {};
    return at == value.size();
  }
  at = last;
  if (!take_digits(value, at, ',', numbers[4]) || at >= value.size() || value[at] != '"') return false;
  const size_t close = value.find('"', at + 1);
  if (close == std::string_view::npos || close + 2 != value.size() || value.back() != ']') return false;
  device = value.substr(at + 1, close - at - 1);
  return device.find('\\') == std::string_view::npos;
}

// The product of a shape written as plain digits ("[8,128,512]", "[]");
// false for any other form.
bool plain_shape_elements(std::string_view shape, uint64_t& elements) {
  if (shape.size() < 2 || shape.front() != '[' || shape.back() != ']') return false;
  elements = 1;
  if (shape.size() == 2) return true;
  size_t at = 1;
  while (at < shape.size()) {
    uint64_t dim = 0;
    const size_t start = at;
    while (at < shape.size() && shape[at] >= '0' && shape[at] <= '9') dim = dim * 10 + static_cast<uint64_t>(shape[at++] - '0');
    if (at == start || at - start > 19 || at >= shape.size() || (shape[at] != ',' && shape[at] != ']')) return false;
    if (__builtin_mul_overflow(elements, dim, &elements)) return false;
    if (shape[at++] == ']') return at == shape.size();
  }
  return false;
}

// A device written without escapes is a view of `value`; one with escapes is
// unescaped into `pool` (left empty without a pool). Without kSized only the
// numbers are read: no device, no size_bytes (whether the value is a tensor
// does not depend on them).
template <bool kSized>
bool tensor_from_value(std::string_view type, std::string_view value, std::string_view shape, TensorRef& out,
                       TextPool* pool) {
  // Reused across calls (this is a leaf of collect_tensors' recursion): one
  // pair of lists per tensor was most of the reader's remaining allocations.
  thread_local std::vector<std::string_view> fields;
  thread_local std::vector<std::string_view> dims;
  uint64_t numbers[5];
  std::string_view plain_device;
  if (read_plain_tensor(value, numbers, plain_device)) {
    out.device = plain_device;
  } else {
    if (!json_text_elements(value, fields) || fields.size() < 5) return false;
    for (size_t i = 0; i < 5; ++i) {
      if (!json_text_to_uint64(fields[i], numbers[i])) return false;
    }
    if constexpr (kSized) {
      out.device = fields.size() > 5 && pool != nullptr ? pool->intern(json_text_string(fields[5]).value_or(""))
                                                        : std::string_view();
    }
  }
  out.tensor_id = numbers[0];
  out.storage_id = numbers[1];
  out.offset = numbers[2];
  out.num_elem = numbers[3];
  out.elem_bytes = numbers[4];
  if constexpr (!kSized) return true;
  const auto open = type.find('(');
  const auto close = type.rfind(')');
  uint64_t element_bytes = 0;
  if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
    element_bytes = dtype_size_bytes(type.substr(open + 1, close - open - 1));
  }
  // The shape decides where the dtype is known and the shape recorded;
  // num_elem x elem_bytes otherwise. A shape that is there but not a list
  // of non-negative integers, or a size beyond 64 bits, leaves the size
  // unknown rather than wrapped or taken from the other fields.
  uint64_t elements = 1;
  out.size_known = true;
  if (element_bytes == 0 || shape.empty() || shape == "null") {
    out.size_known = !__builtin_mul_overflow(out.num_elem, out.elem_bytes, &out.size_bytes);
  } else if (plain_shape_elements(shape, elements)) {
    out.size_known = !__builtin_mul_overflow(elements, element_bytes, &out.size_bytes);
  } else if (json_text_elements(shape, dims)) {
    elements = 1;
    for (std::string_view dim : dims) {
      uint64_t d = 0;
      if (!json_text_to_uint64(dim, d) || __builtin_mul_overflow(elements, d, &elements)) out.size_known = false;
    }
    out.size_known = out.size_known && !__builtin_mul_overflow(elements, element_bytes, &out.size_bytes);
  } else {
    out.size_known = false;
  }
  if (!out.size_known) out.size_bytes = 0;
  return true;
}

// Calls `found(tensor)` for each tensor of one argument, in order.
template <bool kSized, typename Found>
void collect_tensors(std::string_view type, std::string_view value, std::string_view shape, Found& found,
                     TextPool* pool, int depth) {
  if (depth > 16) return;  // lists of lists this deep do not occur; stop runaway input
  if (type.starts_with("Tensor(") || type == "Tensor") {
    TensorRef tensor;
    if (tensor_from_value<kSized>(type, value, shape, tensor, pool)) found(tensor);
    return;
  }
  const auto open = type.find('[');
  if (open == std::string_view::npos || !type.ends_with("]")) return;
  JsonTextElements values(value);
  if (!values.is_array()) return;
  ElementTypes types(type.substr(open + 1, type.size() - open - 2));
  std::string_view element_type;
  if (!types.next(element_type)) return;
  // Past the last listed type, the last one holds for the rest.
  std::string_view next_type;
  bool more_types = types.next(next_type);
  JsonTextElements shapes(shape);
  std::string_view element;
  bool first = true;
  while (values.next(element)) {
    if (!first && more_types) {
      element_type = next_type;
      more_types = types.next(next_type);
    }
    first = false;
    std::string_view element_shape;
    if (!shapes.is_array() || !shapes.next(element_shape)) element_shape = "null";
    collect_tensors<kSized>(element_type, element, element_shape, found, pool, depth + 1);
  }
}

}  // namespace

void find_tensors(std::span<const HostValue> values, std::vector<TensorRef>& out, TextPool* pool) {
  const auto found = [&](const TensorRef& tensor) { out.push_back(tensor); };
  for (const HostValue& v : values) collect_tensors<true>(v.type, v.value, v.shape, found, pool, 0);
}

std::vector<TensorRef> find_tensors(std::span<const HostValue> values, TextPool* pool) {
  std::vector<TensorRef> out;
  find_tensors(values, out, pool);
  return out;
}

uint64_t tensor_bytes(std::span<const HostValue> values) {
  uint64_t bytes = 0;
  const auto found = [&](const TensorRef& tensor) { bytes += tensor.size_bytes; };
  for (const HostValue& v : values) collect_tensors<true>(v.type, v.value, v.shape, found, nullptr, 0);
  return bytes;
}

std::string tensor_size_problem(std::span<const HostValue> values) {
  std::string problem;
  uint64_t total_bytes = 0;
  for (size_t i = 0; i < values.size() && problem.empty(); ++i) {
    const HostValue& v = values[i];
    const auto found = [&](const TensorRef& tensor) {
      if (!problem.empty()) return;
      if (!tensor.size_known) {
        problem = fmt::format("value {} (shape {}): a tensor without a size (a dimension that is not a "
                              "non-negative integer, or bytes beyond 64 bits)",
                              i, v.shape.empty() ? "null" : v.shape);
      } else if (__builtin_add_overflow(total_bytes, tensor.size_bytes, &total_bytes)) {
        problem = fmt::format("value {}: the tensors' bytes add up beyond 64 bits", i);
      }
    };
    collect_tensors<true>(v.type, v.value, v.shape, found, nullptr, 0);
  }
  return problem;
}

void find_tensor_ids(std::span<const HostValue> values, std::vector<std::pair<uint64_t, uint64_t>>& out) {
  const auto found = [&](const TensorRef& tensor) { out.emplace_back(tensor.tensor_id, tensor.storage_id); };
  for (const HostValue& v : values) collect_tensors<false>(v.type, v.value, v.shape, found, nullptr, 0);
}

uint64_t dtype_size_bytes(std::string_view dtype) {
  for (const auto& entry : kDtypeSizes) {
    if (entry.name == dtype) return entry.bytes;
  }
  return 0;
}

namespace detail {

// Reads one argument list; returns an error reason or "".
std::string read_values(const ArgumentLists& lists, ArenaList<HostValue>& out, TextPool& pool, bool keep_strides) {
  if (!lists.values.present && !lists.types.present) return "";
  if (!lists.values.is_list || !lists.types.is_list) return "values/types are not lists";
  const auto& values = lists.values.elements;
  const auto& types = lists.types.elements;
  if (values.size() != types.size()) return fmt::format("{} values but {} types", values.size(), types.size());
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    HostValue v;
    const std::string_view type_text = types[i];
    if (type_text.size() >= 2 && type_text.front() == '"' && type_text.find('\\') == std::string_view::npos) {
      // Compact JSON text without a backslash: the string is what is quoted,
      // and the quoted text is already in the pool (equal types share it).
      v.type = type_text.substr(1, type_text.size() - 2);
    } else {
      auto type = json_text_string(type_text);
      if (!type) return fmt::format("type {} is not a string", i);
      v.type = pool.intern(*type);
    }
    v.value = lists.values.elements[i];
    if (i < lists.shapes.elements.size()) v.shape = lists.shapes.elements[i];
    if (keep_strides && i < lists.strides.elements.size()) v.stride = lists.strides.elements[i];
    out.push_back(std::move(v));
  }
  return "";
}

std::optional<std::string_view> plain_string_text(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.find('\\') != std::string_view::npos) return std::nullopt;
  return text.substr(1, text.size() - 2);
}

void read_process_groups(const HostNode& node, size_t index, HostTrace& trace) {
  if (node.inputs.empty()) return;
  const auto description = json_text_string(node.inputs[0].value);
  if (!description) return;
  const auto member = [](const nlohmann::json& object, const char* key) -> const nlohmann::json& {
    static const nlohmann::json kNull;
    if (!object.is_object()) return kNull;
    const auto it = object.find(key);
    return it == object.end() ? kNull : *it;
  };
  // A group's size and ranks size the job's groups: a rank count (0 ..
  // kMaxRanks) or a rank in the range of `snr et convert --rank`.
  const auto rank_number = [](const nlohmann::json& value, const std::string& what, bool count) {
    int64_t n = -1;
    if (value.is_number_integer()) json_to_int64(value, n);
    if (!(count ? n >= 0 && static_cast<uint64_t>(n) <= limits::kMaxRanks : limits::is_rank(n))) {
      throw Error(fmt::format("{} = {} is not an integer in 0 .. {}", what, value.dump(),
                              count ? limits::kMaxRanks : limits::kMaxRanks - 1));
    }
    return n;
  };
  try {
    const nlohmann::json groups = parse_json_input(*description, "");
    if (!groups.is_array()) throw nlohmann::json::type_error::create(302, "not a list", nullptr);
    // All of the record's groups or none: a group left out would leave its
    // name to another rule.
    std::vector<ProcessGroupInfo> read;
    for (const auto& g : groups) {
      ProcessGroupInfo info;
      const std::string where = fmt::format("group {}", read.size());
      if (member(g, "pg_name").is_string()) info.pg_name = member(g, "pg_name").get<std::string>();
      if (member(g, "backend_config").is_string()) {
        info.backend_config = member(g, "backend_config").get<std::string>();
      }
      if (!member(g, "group_size").is_null()) {
        info.group_size = rank_number(member(g, "group_size"), where + " group_size", true);
      }
      json_to_int64(member(g, "backend_id"), info.backend_id);
      if (member(g, "ranks").is_array()) {
        for (const auto& r : member(g, "ranks")) info.ranks.push_back(rank_number(r, where + " rank", false));
      }
      read.push_back(std::move(info));
    }
    trace.process_groups.insert(trace.process_groups.end(), read.begin(), read.end());
  } catch (const nlohmann::json::exception& e) {
    trace.skipped.push_back({index, std::to_string(node.id),
                             fmt::format("unreadable process-group description: {}", e.what())});
  } catch (const Error& e) {
    trace.skipped.push_back({index, std::to_string(node.id),
                             fmt::format("unreadable process-group description: {}", e.what())});
  }
}

void apply_scalar(ScalarField field, std::string_view value, HostNode& node, TextPool& pool) {
  // Unsigned fields take the value only when it reads as one.
  const auto set_unsigned = [&](auto& target) {
    uint64_t u = 0;
    if (json_text_to_uint64(value, u)) target = u;
  };
  switch (field) {
    case ScalarField::kNone: return;
    case ScalarField::kRfId: return set_unsigned(node.rf_id);
    case ScalarField::kFwParent: return set_unsigned(node.fw_parent);
    case ScalarField::kScope: return set_unsigned(node.scope);
    case ScalarField::kTid: return set_unsigned(node.tid);
    case ScalarField::kFwTid: return set_unsigned(node.fw_tid);
    case ScalarField::kSeqId: {
      int64_t s = 0;
      if (json_text_to_int64(value, s)) node.seq_id = s;
      return;
    }
    case ScalarField::kOpSchema:
      if (const auto plain = plain_string_text(value)) {
        node.op_schema = pool.intern(*plain);
      } else if (const auto text = json_text_string(value)) {
        node.op_schema = pool.intern(*text);
      }
      return;
  }
}

}  // namespace detail
}  // namespace snr::pytorch
