#include "formats/rundb/run_data.h"

#include <charconv>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::rundb {

void set_recorded_chips(RunData& data, const std::vector<uint32_t>& chips) {
  std::string text;
  for (uint32_t chip : chips) text += (text.empty() ? "" : " ") + std::to_string(chip);
  data.meta.emplace_back(kRecordedChipsKey, std::move(text));
}

std::optional<std::vector<uint32_t>> recorded_chips(const RunData& data, uint32_t chip_count) {
  const std::string* text = nullptr;
  for (const auto& [key, value] : data.meta) {
    if (key == kRecordedChipsKey) text = &value;
  }
  if (text == nullptr) return std::nullopt;
  std::vector<uint32_t> chips;
  const char* at = text->data();
  const char* end = at + text->size();
  while (at != end) {
    if (*at == ' ') {
      ++at;
      continue;
    }
    uint32_t chip = 0;
    const auto [next, ec] = std::from_chars(at, end, chip);
    if (ec != std::errc() || (next != end && *next != ' ') || chip >= chip_count ||
        (!chips.empty() && chip <= chips.back())) {
      throw Error(fmt::format("run data: meta.{} is '{}', expected ascending chip numbers below {}",
                              kRecordedChipsKey, *text, chip_count));
    }
    chips.push_back(chip);
    at = next;
  }
  if (chips.empty()) {
    throw Error(fmt::format("run data: meta.{} is empty; a window records at least one chip", kRecordedChipsKey));
  }
  return chips;
}

}  // namespace snr::rundb
