// Static VMEM allocation, as a compiler does it: buffers are placed at
// compile time in program order and freed when their last user is emitted.
// The policy (first-fit, best-fit, size-segregated) decides where each
// buffer lands and therefore how fragmented VMEM becomes; the allocator
// samples, at every allocation, free bytes and the largest free extent so
// the fragmentation a policy causes is visible before anything runs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/spec.h"

namespace snr::compiler {

struct VmemStats {
  uint64_t capacity_bytes = 0;
  uint64_t peak_used_bytes = 0;
  uint64_t allocations = 0;
  // Free bytes and largest free extent when usage peaked: what the biggest
  // request of the program had to fit into.
  uint64_t free_at_peak_bytes = 0;
  uint64_t largest_free_at_peak_bytes = 0;
  // Per allocation: free bytes and largest free extent after placing it.
  std::vector<uint64_t> free_bytes_samples;
  std::vector<uint64_t> largest_free_samples;
  // Median over samples of largest_free / free (1.0 = no fragmentation).
  [[nodiscard]] double median_contiguous_fraction() const;
  [[nodiscard]] double median_free_fraction() const;
};

class VmemAllocator {
 public:
  // Manages [base, base + capacity_bytes) in units of `granule_bytes`.
  VmemAllocator(uint64_t base, uint64_t capacity_bytes, uint64_t granule_bytes, AllocatorPolicy policy);

  // Returns the address of a new buffer; throws snr::Error naming `what`,
  // the size and the free / largest-free bytes when it does not fit.
  uint64_t allocate(uint64_t bytes, const std::string& what);
  // Frees a buffer returned by allocate(); throws on an unknown address.
  void release(uint64_t address);

  [[nodiscard]] uint64_t used_bytes() const { return used_bytes_; }
  [[nodiscard]] uint64_t largest_free_bytes() const;
  [[nodiscard]] const VmemStats& stats() const { return stats_; }

 private:
  uint64_t place(uint64_t bytes) const;
  uint64_t size_class(uint64_t bytes) const;

  uint64_t base_;
  uint64_t capacity_bytes_;
  uint64_t granule_bytes_;
  AllocatorPolicy policy_;
  std::map<uint64_t, uint64_t> free_;       // offset -> length, coalesced
  std::map<uint64_t, uint64_t> allocated_;  // offset -> length
  uint64_t used_bytes_ = 0;
  VmemStats stats_;
};

}  // namespace snr::compiler
