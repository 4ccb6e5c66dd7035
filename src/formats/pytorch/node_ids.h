// The host-trace reader's set of node ids seen so far. Internal to
// formats/pytorch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace snr::pytorch::detail {

// The node ids seen so far, to skip a repeated one. Trace ids are dense in
// places (0 .. a little over the node count for one trace; one such run per
// trace where several were merged with offsets), so they are bits of a
// bitmap of 4 KiB blocks, each allocated when the first id inside it comes:
// a run of ids costs its own blocks, not a bitmap up to the largest id. The
// block directory covers ids up to kBitsPerId an id seen (or reserved);
// any id beyond goes to an open-addressing hash set. Both are checked: an id
// hashed while the directory was smaller may fall inside it later. A hash
// set alone misses the cache on every node of a large trace.
class NodeIds {
 public:
  void reserve(size_t count) {
    reserved_ = std::max(reserved_, count);
  }

  // False: `id` was seen before.
  bool insert(uint64_t id) {
    ++count_;
    const uint64_t block = id / kBlockBits;
    if (block >= blocks_.size() && id / 64 < (std::max(count_, reserved_) + 4096) * (kBitsPerId / 64)) {
      blocks_.resize(std::max<size_t>(block + 1, blocks_.size() * 2));
    }
    if (block < blocks_.size()) {
      if (hashed_ != 0 && contains_hashed(id)) return false;
      auto& bits = blocks_[block];
      if (!bits) bits = std::make_unique<uint64_t[]>(kBlockWords);  // zeroed
      uint64_t& word = bits[id % kBlockBits / 64];
      const uint64_t bit = uint64_t{1} << (id % 64);
      if ((word & bit) != 0) return false;
      word |= bit;
      return true;
    }
    return insert_hashed(id);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // never in the hash set: beyond any directory
  static constexpr size_t kBitsPerId = 256;
  static constexpr size_t kBlockWords = 512;  // 4 KiB
  static constexpr uint64_t kBlockBits = kBlockWords * 64;

  static uint64_t mix(uint64_t id) {
    id *= 0x9E3779B97F4A7C15ull;
    return id ^ (id >> 32);
  }

  bool contains_hashed(uint64_t id) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = mix(id) & mask; slots_[i] != kEmpty; i = (i + 1) & mask) {
      if (slots_[i] == id) return true;
    }
    return false;
  }

  bool insert_hashed(uint64_t id) {
    if (id == kEmpty) {
      const bool first = !has_max_id_;
      has_max_id_ = true;
      return first;
    }
    if ((hashed_ + 1) * 2 > slots_.size()) rehash(std::max<size_t>(16, slots_.size() * 2));
    const size_t mask = slots_.size() - 1;
    for (size_t i = mix(id) & mask;; i = (i + 1) & mask) {
      if (slots_[i] == id) return false;
      if (slots_[i] == kEmpty) {
        slots_[i] = id;
        ++hashed_;
        return true;
      }
    }
  }

  void rehash(size_t slots) {
    std::vector<uint64_t> old(slots, kEmpty);
    old.swap(slots_);
    const size_t mask = slots_.size() - 1;
    for (uint64_t id : old) {
      if (id == kEmpty) continue;
      size_t i = mix(id) & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = id;
    }
  }

  std::vector<std::unique_ptr<uint64_t[]>> blocks_;  // null: no id seen in the block
  std::vector<uint64_t> slots_;
  size_t count_ = 0, reserved_ = 0, hashed_ = 0;
  bool has_max_id_ = false;
};

}  // namespace snr::pytorch::detail
