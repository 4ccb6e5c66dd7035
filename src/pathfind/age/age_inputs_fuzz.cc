// Fuzz target for the generator's input readers and the generator itself:
// the first byte picks technology / template / budget; a budget that reads
// is also run through the generator with the built-in library and template.
// Only snr::Error may escape.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "pathfind/age/generate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  using namespace snr::pathfind::age;
  try {
    switch (data[0] % 3) {
      case 0: (void)parse_technology_yaml(text, "fuzz.yaml"); break;
      case 1: (void)parse_template_yaml(text, "fuzz.yaml"); break;
      default: {
        ResourceBudget budget = parse_budget_yaml(text, "fuzz.yaml");
        (void)generate_architecture(builtin_technology("n7"), builtin_template("gpu-16x16"), budget);
      }
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
