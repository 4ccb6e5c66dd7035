// Fuzz target for the custom-collective program reader: any bytes read as
// a Chakra trace and checked as a custom collective must end in snr::Error
// or a valid program, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "dsim/workload/custom_program.h"
#include "formats/chakra/et_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    auto reader = snr::chakra::EtReader::from_memory(bytes, "fuzz");
    std::vector<ChakraProtoMsg::Node> nodes;
    ChakraProtoMsg::Node node;
    while (nodes.size() < 4096 && reader.next(node)) nodes.push_back(node);
    (void)snr::dsim::parse_custom_program(nodes, reader.stats().skipped_records, "fuzz");
  } catch (const snr::Error&) {
  }
  return 0;
}
