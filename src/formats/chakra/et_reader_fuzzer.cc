// Fuzz target: arbitrary bytes through the .et reader, strict and lenient.
// Every input must either parse or raise snr::Error; nothing else may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "formats/chakra/et_reader.h"

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
      }
    } catch (const snr::Error&) {
    }
  }
  return 0;
}
