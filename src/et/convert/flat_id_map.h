// A map from 64-bit ids (correlation ids, Record function ids) to record
// indices, for the linker's lookups over hundreds of thousands of Kineto
// events: one flat open-addressed table instead of std::unordered_map's node
// per entry, whose allocations and frees were most of the linking time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace snr::et_convert {

class FlatIdMap {
 public:
  // Room for `count` ids without growing.
  explicit FlatIdMap(size_t count = 0) { rehash(capacity_for(count)); }

  // Keeps the first index given for an id, as std::unordered_map::emplace.
  void emplace(int64_t id, size_t index) {
    if (4 * (size_ + 1) > 3 * slots_.size()) rehash(slots_.size() * 2);
    Slot& slot = slots_[position(slots_, id)];
    if (slot.index != kEmpty) return;
    slot = {id, index};
    ++size_;
  }

  // The index kept for `id`, or nullptr.
  [[nodiscard]] const size_t* find(int64_t id) const {
    const Slot& slot = slots_[position(slots_, id)];
    return slot.index == kEmpty ? nullptr : &slot.index;
  }

  [[nodiscard]] bool empty() const { return size_ == 0; }

 private:
  static constexpr size_t kEmpty = std::numeric_limits<size_t>::max();
  struct Slot {
    int64_t id = 0;
    size_t index = kEmpty;
  };

  // At most three quarters full: linear probing stays short (about 1.5
  // probes a hit and 2.5 a miss at half full, where a table sized by powers
  // of two mostly is), and a table twice as large would be fresh memory to
  // fault in for little.
  static size_t capacity_for(size_t count) {
    size_t capacity = 16;
    while (3 * capacity < 4 * count) capacity *= 2;
    return capacity;
  }

  // Where `id` is, or the empty slot where it would go.
  static size_t position(const std::vector<Slot>& slots, int64_t id) {
    // splitmix64's finaliser: ids are often consecutive.
    uint64_t h = static_cast<uint64_t>(id);
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
    h ^= h >> 31;
    const size_t mask = slots.size() - 1;
    size_t at = static_cast<size_t>(h) & mask;
    while (slots[at].index != kEmpty && slots[at].id != id) at = (at + 1) & mask;
    return at;
  }

  void rehash(size_t capacity) {
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    for (const Slot& slot : old) {
      if (slot.index != kEmpty) slots_[position(slots_, slot.id)] = slot;
    }
  }

  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace snr::et_convert
