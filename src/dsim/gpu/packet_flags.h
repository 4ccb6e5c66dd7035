// LL packet flags at memory (seed 003 §3.2): per area (a GPU's address
// space), the byte intervals whose packets have arrived, and the packet
// loads parked until the interval they read has arrived.
//
// Semantics (the GPU model's): a load is answered once one merged arrived
// interval covers all of it; a store marks its interval arrived, merging it
// with the intervals it touches, and answers every parked load the merged
// interval now covers, in parking order. Flags are never cleared.
//
// Why not ordered maps: every packet store and most packet loads of an LL
// collective come here, thousands parked at a time; tree walks were a
// cache miss per level. Intervals are a sorted array (binary search over a
// few contiguous kilobytes; a store mostly extends an interval in place),
// and parked loads hang off a hash table by area and 64-byte grain of
// their first byte. A store only has to look at the grains from its own
// first byte minus the longest parked load to its last byte: a load that
// the merged interval covers but no single old interval did must overlap
// the store (the merged interval is the store plus one old interval on
// each side at most).
//
// Memory: the arrived intervals (what the run wrote, merged) and the
// parked loads (in flight); nothing per request once it is answered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace snr::dsim::gpu {

class PacketFlags {
 public:
  explicit PacketFlags(uint32_t areas);

  // Whether [begin, end) has arrived in `area`.
  [[nodiscard]] bool covered(uint32_t area, uint64_t begin, uint64_t end) const;
  // Parks the load `tag` reading [begin, end) (not covered) until it is.
  void park(uint32_t area, uint64_t begin, uint64_t end, uint32_t tag);
  // Marks [begin, end) arrived; `answered` gets the parked loads this
  // completes, in the order they were parked.
  void arrive(uint32_t area, uint64_t begin, uint64_t end, std::vector<uint32_t>& answered);
  [[nodiscard]] uint64_t parked() const { return parked_count_; }

 private:
  struct Interval {
    uint64_t begin, end;
  };
  struct Waiter {
    uint64_t begin = 0, end = 0;
    uint64_t order = 0;  // parking order
    uint32_t tag = 0;
    uint32_t next = kNone;  // the grain's chain or the free list
  };
  // A grain's chain of parked loads (key kEmpty: a free slot).
  struct Entry {
    uint64_t key = kEmpty;
    uint32_t head = kNone;
  };
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr uint64_t kEmpty = UINT64_MAX;
  static constexpr uint32_t kGrainBits = 6;

  static uint64_t key_of(uint32_t area, uint64_t begin) { return uint64_t{area} << 40 | begin >> kGrainBits; }
  [[nodiscard]] size_t slot_of(uint64_t key) const;  // the key's slot or the free one where it would go
  void erase_slot(size_t slot);
  void grow_table();

  std::vector<std::vector<Interval>> arrived_;  // by area, sorted, disjoint and not touching
  std::vector<Waiter> waiters_;
  uint32_t free_waiter_ = kNone;
  std::vector<Entry> table_;  // open addressing, linear probing
  size_t table_used_ = 0;
  uint64_t parked_count_ = 0, parked_total_ = 0;
  uint64_t longest_parked_ = 1;                  // bytes of the longest load parked so far
  std::vector<std::pair<uint64_t, uint32_t>> scratch_;  // (order, tag) of answered loads
};

}  // namespace snr::dsim::gpu
