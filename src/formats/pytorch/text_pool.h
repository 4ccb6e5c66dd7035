// Interned text of a trace's records. A large host trace repeats most of
// what it keeps verbatim (argument types, shapes, strides, scalar values,
// operator schemas, unknown attributes: fewer than 3 distinct texts in 100
// kept on a 24-layer Transformer training trace), so each distinct text is stored once, in large chunks that
// never move, and the records hold string_views into them instead of one
// allocated std::string per value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace snr::pytorch {

class TextPool {
 public:
  TextPool() = default;
  TextPool(const TextPool&) = delete;
  TextPool& operator=(const TextPool&) = delete;

  // A view of a copy of `text` that lives as long as the pool; equal texts
  // get the same view.
  std::string_view intern(std::string_view text);

  // Takes `other`'s texts, whose views stay valid (the memory does not
  // move); they are not added to this pool's index, so interning one of
  // them again stores another copy.
  void adopt(TextPool&& other);

  // Adopted texts count as distinct (each pool stored each text once).
  [[nodiscard]] size_t distinct_texts() const { return distinct_texts_ + adopted_texts_; }
  [[nodiscard]] size_t stored_bytes() const { return stored_bytes_; }

 private:
  static constexpr size_t kChunkBytes = size_t{1} << 20;

  // One entry of the open-addressing index (linear probing, at most half
  // full): the text's hash is kept so that probing and growing compare and
  // move 8 bytes, not the text. `data == nullptr`: empty.
  struct Slot {
    uint64_t hash = 0;
    const char* data = nullptr;
    size_t size = 0;
  };

  std::string_view store(std::string_view text);
  void grow_index();

  std::vector<std::unique_ptr<char[]>> chunks_;
  size_t chunk_capacity_bytes_ = 0;  // of chunks_.back()
  size_t chunk_used_bytes_ = 0;
  size_t stored_bytes_ = 0;
  std::vector<Slot> slots_;  // a power of two of them, or none yet
  size_t distinct_texts_ = 0;  // in the index
  size_t adopted_texts_ = 0;
};

}  // namespace snr::pytorch
