#include "compiler/vmem_allocator.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "common/error.h"

namespace snr::compiler {
namespace {

double median(std::vector<double> values) {
  if (values.empty()) return 1.0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

double VmemStats::median_contiguous_fraction() const {
  std::vector<double> r;
  for (size_t i = 0; i < free_bytes_samples.size(); ++i) {
    if (free_bytes_samples[i] == 0) continue;
    r.push_back(static_cast<double>(largest_free_samples[i]) / static_cast<double>(free_bytes_samples[i]));
  }
  return median(r);
}

double VmemStats::median_free_fraction() const {
  std::vector<double> r;
  for (uint64_t f : free_bytes_samples) r.push_back(static_cast<double>(f) / static_cast<double>(capacity_bytes));
  return median(r);
}

VmemAllocator::VmemAllocator(uint64_t base, uint64_t capacity_bytes, uint64_t granule_bytes, AllocatorPolicy policy)
    : base_(base), capacity_bytes_(capacity_bytes), granule_bytes_(granule_bytes), policy_(policy) {
  free_[0] = capacity_bytes;
  stats_.capacity_bytes = capacity_bytes;
}

uint64_t VmemAllocator::size_class(uint64_t bytes) const {
  // Size-segregated: requests are rounded up to a power of two so each
  // class reuses its own holes exactly.
  return std::bit_ceil(bytes);
}

uint64_t VmemAllocator::place(uint64_t bytes) const {
  uint64_t chosen = UINT64_MAX, chosen_length = UINT64_MAX;
  for (const auto& [offset, length] : free_) {
    if (length < bytes) continue;
    if (policy_ == AllocatorPolicy::kFirstFit) return offset;
    if (length < chosen_length) {
      chosen = offset;
      chosen_length = length;
    }
  }
  if (policy_ == AllocatorPolicy::kSizeSegregated && chosen != UINT64_MAX) {
    // Large classes fill from the top of VMEM and small ones from the
    // bottom, so the two populations do not interleave.
    if (bytes >= 256 * 1024) {
      for (auto it = free_.rbegin(); it != free_.rend(); ++it) {
        if (it->second >= bytes) return it->first + it->second - bytes;
      }
    }
  }
  return chosen;
}

uint64_t VmemAllocator::allocate(uint64_t bytes, const std::string& what) {
  if (bytes == 0) bytes = 1;
  uint64_t size = (bytes + granule_bytes_ - 1) / granule_bytes_ * granule_bytes_;
  if (policy_ == AllocatorPolicy::kSizeSegregated) size = std::max(size_class(size), granule_bytes_);
  const uint64_t offset = place(size);
  if (offset == UINT64_MAX) {
    throw Error(fmt::format("VMEM allocation of {} bytes for {} failed: {} bytes free, largest free extent {} bytes "
                            "(capacity {})",
                            size, what, capacity_bytes_ - used_bytes_, largest_free_bytes(), capacity_bytes_));
  }
  auto it = free_.upper_bound(offset);
  --it;  // the extent containing offset
  const uint64_t ext_offset = it->first, ext_length = it->second;
  free_.erase(it);
  if (offset > ext_offset) free_[ext_offset] = offset - ext_offset;
  if (offset + size < ext_offset + ext_length) free_[offset + size] = ext_offset + ext_length - offset - size;
  allocated_[offset] = size;
  used_bytes_ += size;
  if (used_bytes_ > stats_.peak_used_bytes) {
    stats_.peak_used_bytes = used_bytes_;
    stats_.free_at_peak_bytes = capacity_bytes_ - used_bytes_;
    stats_.largest_free_at_peak_bytes = largest_free_bytes();
  }
  ++stats_.allocations;
  stats_.free_bytes_samples.push_back(capacity_bytes_ - used_bytes_);
  stats_.largest_free_samples.push_back(largest_free_bytes());
  return base_ + offset;
}

void VmemAllocator::release(uint64_t address) {
  const uint64_t offset = address - base_;
  auto it = allocated_.find(offset);
  if (address < base_ || it == allocated_.end()) {
    throw Error(fmt::format("VMEM release of {:#x}: not an allocated buffer", address));
  }
  uint64_t start = offset, length = it->second;
  used_bytes_ -= length;
  allocated_.erase(it);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + length) {
    length += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      length += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = length;
}

uint64_t VmemAllocator::largest_free_bytes() const {
  uint64_t largest = 0;
  for (const auto& [offset, length] : free_) largest = std::max(largest, length);
  return largest;
}

}  // namespace snr::compiler
