// The tensors a node reads and writes, as ASTRA-sim's local-memory tracker
// reads them: attributes "inputs" and "outputs", each a string list of
// (tensor name, size in bytes) pairs. Symbolic Tensor Graph, the generator
// behind ASTRA-sim's LLM workloads, writes them ("mb0.attn.y@0...",
// "1048576.0"); Chakra's PyTorch converter does not.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/chakra/et_def.pb.h"

namespace snr::chakra {

namespace attr_name {
inline constexpr std::string_view kInputs = "inputs";
inline constexpr std::string_view kOutputs = "outputs";
}  // namespace attr_name

// A tensor as a list names it; `name` views the node's string (or, given to
// set_tensor_list, the caller's) and lives as long as it.
struct TensorRef {
  std::string_view name;
  uint64_t bytes = 0;
};

// Largest tensor size accepted (1 PiB, the simulator's message bound).
inline constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 50;

// A size as the generators write it: a decimal integer, or a decimal
// number whose fraction is dropped ("1048576.0" is 1048576 bytes, as
// ASTRA-sim's std::stoull reads it); an exponent is read as such
// ("1e6" is 1,000,000 bytes, where stoull would stop at the "e").
// nullopt for anything else, a negative value or one above kMaxTensorBytes.
std::optional<uint64_t> parse_tensor_bytes(std::string_view text);

// The list in attribute `name` of `node`: nullopt when the node has no such
// attribute, an empty list when the attribute holds no string list (how
// the generator writes a node with no outputs). Throws snr::Error naming
// the attribute and entry for an odd number of strings or a bad size.
std::optional<std::vector<TensorRef>> tensor_list(const ChakraProtoMsg::Node& node, std::string_view name);

// Writes `tensors` as attribute `name` (sizes as decimal integers), replacing
// an attribute of that name or appending one.
void set_tensor_list(ChakraProtoMsg::Node& node, std::string_view name, const std::vector<TensorRef>& tensors);

}  // namespace snr::chakra
