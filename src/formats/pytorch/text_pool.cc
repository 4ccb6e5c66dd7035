#include "formats/pytorch/text_pool.h"

#include <algorithm>
#include <cstring>

namespace snr::pytorch {

namespace {

// A multiply-xorshift hash over 8-byte words: the texts are short (a few
// dozen bytes) and hashed once each per reference, so this is cheaper than
// std::hash's byte-oriented one.
uint64_t hash_text(std::string_view text) {
  constexpr uint64_t kMultiplier = 0x9E3779B97F4A7C15ull;
  uint64_t h = text.size() * kMultiplier;
  size_t at = 0;
  for (; at + 8 <= text.size(); at += 8) {
    uint64_t word = 0;
    std::memcpy(&word, text.data() + at, 8);
    h = (h ^ word) * kMultiplier;
    h ^= h >> 29;
  }
  // The last bytes: an overlapping word where the text has one (a fixed
  // 8-byte load, not a call to memcpy), else byte by byte.
  uint64_t tail = 0;
  if (at != text.size()) {
    if (text.size() >= 8) {
      std::memcpy(&tail, text.data() + text.size() - 8, 8);
    } else {
      for (size_t i = at; i < text.size(); ++i) tail = tail << 8 | static_cast<unsigned char>(text[i]);
    }
  }
  h = (h ^ tail) * kMultiplier;
  return h ^ (h >> 32);
}

// Equal bytes, for the texts a hash hit leaves to compare: nearly every
// lookup is a hit (a few distinct texts in a hundred), and most texts are
// short, so up to 16 bytes compare as two overlapping words, not a call.
bool same_bytes(const char* a, const char* b, size_t size) {
  if (size > 16) return std::memcmp(a, b, size) == 0;
  if (size >= 8) {
    uint64_t a_head, b_head, a_tail, b_tail;
    std::memcpy(&a_head, a, 8);
    std::memcpy(&b_head, b, 8);
    std::memcpy(&a_tail, a + size - 8, 8);
    std::memcpy(&b_tail, b + size - 8, 8);
    return ((a_head ^ b_head) | (a_tail ^ b_tail)) == 0;
  }
  for (size_t i = 0; i < size; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

}  // namespace

std::string_view TextPool::intern(std::string_view text) {
  if (text.empty()) return {};
  if (slots_.empty()) slots_.resize(1024);
  const uint64_t hash = hash_text(text);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (slot.data == nullptr) {
      const std::string_view kept = store(text);
      slot = {hash, kept.data(), kept.size()};
      if (++distinct_texts_ * 2 > slots_.size()) grow_index();
      return kept;
    }
    if (slot.hash == hash && slot.size == text.size() && same_bytes(slot.data, text.data(), text.size())) {
      return {slot.data, slot.size};
    }
  }
}

std::string_view TextPool::store(std::string_view text) {
  if (chunks_.empty() || chunk_capacity_bytes_ - chunk_used_bytes_ < text.size()) {
    // A text longer than a chunk gets a chunk of its own size.
    chunk_capacity_bytes_ = std::max(kChunkBytes, text.size());
    chunks_.push_back(std::make_unique_for_overwrite<char[]>(chunk_capacity_bytes_));
    chunk_used_bytes_ = 0;
  }
  char* copy = chunks_.back().get() + chunk_used_bytes_;
  std::memcpy(copy, text.data(), text.size());
  chunk_used_bytes_ += text.size();
  stored_bytes_ += text.size();
  return {copy, text.size()};
}

void TextPool::adopt(TextPool&& other) {
  // Ahead of the chunk being filled, which stays last.
  const auto at = chunks_.empty() ? chunks_.end() : chunks_.end() - 1;
  chunks_.insert(at, std::make_move_iterator(other.chunks_.begin()), std::make_move_iterator(other.chunks_.end()));
  stored_bytes_ += other.stored_bytes_;
  adopted_texts_ += other.distinct_texts();
  other.chunks_.clear();
  other.slots_.clear();
  other.chunk_capacity_bytes_ = other.chunk_used_bytes_ = other.stored_bytes_ = other.distinct_texts_ = other.adopted_texts_ = 0;
}

void TextPool::grow_index() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.data == nullptr) continue;
    size_t i = slot.hash & mask;
    while (slots_[i].data != nullptr) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

}  // namespace snr::pytorch
