#include "formats/chakra/tensor_lists.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "common/error.h"
#include "formats/chakra/attributes.h"

namespace snr::chakra {

std::optional<uint64_t> parse_tensor_bytes(std::string_view text) {
  if (text.empty() || text.front() == '-' || text.front() == '+') return std::nullopt;
  const char* first = text.data();
  const char* last = first + text.size();
  uint64_t whole = 0;
  const auto [end, error] = std::from_chars(first, last, whole);
  if (error == std::errc{} && end == last) {
    if (whole > kMaxTensorBytes) return std::nullopt;
    return whole;
  }
  // Not a plain integer: a decimal number (fraction, exponent).
  double value = 0;
  const auto [real_end, real_error] = std::from_chars(first, last, value, std::chars_format::general);
  if (real_error != std::errc{} || real_end != last || !std::isfinite(value) || value < 0 ||
      value > static_cast<double>(kMaxTensorBytes)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(value);
}

std::optional<std::vector<TensorRef>> tensor_list(const ChakraProtoMsg::Node& node, std::string_view name) {
  const ChakraProtoMsg::AttributeProto* attribute = find_attribute(node, name);
  if (attribute == nullptr) return std::nullopt;
  std::vector<TensorRef> tensors;
  if (attribute->value_case() != ChakraProtoMsg::AttributeProto::kStringList) return tensors;
  const auto& values = attribute->string_list().values();
  if (values.size() % 2 != 0) {
    throw Error(fmt::format("attribute '{}' holds {} strings; it must be (tensor name, size in bytes) pairs", name,
                            values.size()));
  }
  tensors.reserve(static_cast<size_t>(values.size()) / 2);
  for (int i = 0; i < values.size(); i += 2) {
    const auto bytes = parse_tensor_bytes(values.Get(i + 1));
    if (!bytes) {
      throw Error(fmt::format("attribute '{}': tensor '{}' has size '{}', not a byte count in 0 .. 2^50", name,
                              values.Get(i), values.Get(i + 1)));
    }
    tensors.push_back(TensorRef{std::string_view(values.Get(i)), *bytes});
  }
  return tensors;
}

void set_tensor_list(ChakraProtoMsg::Node& node, std::string_view name, const std::vector<TensorRef>& tensors) {
  ChakraProtoMsg::AttributeProto* attribute = nullptr;
  for (auto& existing : *node.mutable_attr()) {
    if (existing.name() == name) attribute = &existing;
  }
  if (attribute == nullptr) {
    attribute = node.add_attr();
    attribute->set_name(std::string(name));
  }
  auto* values = attribute->mutable_string_list()->mutable_values();
  values->Clear();
  for (const TensorRef& tensor : tensors) {
    values->Add(std::string(tensor.name));
    values->Add(std::to_string(tensor.bytes));
  }
}

}  // namespace snr::chakra
