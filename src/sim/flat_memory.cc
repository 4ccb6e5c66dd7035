#include "sim/flat_memory.h"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.h"

namespace snr::sim {

void FlatMemory::map(uint64_t address, uint64_t length) {
  if (length == 0) return;
  if (address + length < address) {
    throw Error(fmt::format("mapping {} bytes at {:#x} wraps the 64-bit address space", length, address));
  }
  const uint64_t first = address >> kPageShift, last = (address + length - 1) >> kPageShift;
  for (uint64_t number = first; number <= last; ++number) {
    auto& slot = pages_[number];
    if (!slot) slot = std::make_unique<Page>();  // value-initialized: zero
  }
}

bool FlatMemory::contains(uint64_t address, uint64_t length) const {
  if (length == 0) return true;
  if (address + length < address) return false;
  const uint64_t first = address >> kPageShift, last = (address + length - 1) >> kPageShift;
  if (last - first >= pages_.size()) return false;  // more pages than exist: no walk over a huge range
  for (uint64_t number = first; number <= last; ++number) {
    if (number == cached_number_) continue;
    if (!pages_.count(number)) return false;
  }
  return true;
}

void FlatMemory::read(uint64_t address, std::span<uint8_t> out) const {
  size_t done = 0;
  while (done < out.size()) {
    const uint64_t at = address + done;
    const uint64_t in_page = at & (kPageBytes - 1);
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(kPageBytes - in_page, out.size() - done));
    std::memcpy(out.data() + done, page(at >> kPageShift) + in_page, chunk);
    done += chunk;
  }
}

void FlatMemory::write(uint64_t address, std::span<const uint8_t> data) {
  size_t done = 0;
  while (done < data.size()) {
    const uint64_t at = address + done;
    const uint64_t in_page = at & (kPageBytes - 1);
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(kPageBytes - in_page, data.size() - done));
    std::memcpy(page(at >> kPageShift) + in_page, data.data() + done, chunk);
    done += chunk;
  }
}

std::vector<uint64_t> FlatMemory::mapped_pages() const {
  std::vector<uint64_t> out;
  out.reserve(pages_.size());
  for (const auto& [number, bytes] : pages_) out.push_back(number);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace snr::sim
