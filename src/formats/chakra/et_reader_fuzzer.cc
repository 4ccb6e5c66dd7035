// Fuzz target: arbitrary bytes through the .et reader, strict and lenient,
// and every node read through the tensor-list reader (the local-memory
// tracker's "inputs"/"outputs"). Every input must either parse or raise
// snr::Error; nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/tensor_lists.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool lenient : {false, true}) {
    try {
      snr::chakra::EtReadOptions options;
      options.lenient = lenient;
      options.max_message_bytes = 1u << 20;
      options.buffer_bytes = 64;
      auto reader = snr::chakra::EtReader::from_memory(bytes, "fuzz-input", options);
      ChakraProtoMsg::Node node;
      while (reader.next(node)) {
        for (const std::string_view name : {snr::chakra::attr_name::kInputs, snr::chakra::attr_name::kOutputs}) {
          try {
            if (const auto tensors = snr::chakra::tensor_list(node, name)) {
              for (const auto& tensor : *tensors) {
                if (tensor.bytes > snr::chakra::kMaxTensorBytes) __builtin_trap();
              }
            }
          } catch (const snr::Error&) {
          }
        }
      }
    } catch (const snr::Error&) {
    }
  }
  return 0;
}
