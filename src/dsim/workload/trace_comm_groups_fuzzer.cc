// Fuzz target for the process groups a trace describes itself: the input
// values of a "## process_group:init ##" METADATA node must parse into
// groups of existing, distinct ranks or end in snr::Error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "dsim/workload/trace_comm_groups.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte picks the NPU count.
  const uint64_t npus = 1 + data[0] % 32;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  snr::dsim::CommGroups groups;
  try {
    snr::dsim::parse_process_group_metadata(text, "fuzz", npus, groups);
  } catch (const snr::Error&) {
    return 0;
  }
  for (const auto& [name, members] : groups.groups) {
    if (members.empty()) __builtin_trap();
    for (uint32_t m : members) {
      if (m >= npus) __builtin_trap();
    }
  }
  return 0;
}
