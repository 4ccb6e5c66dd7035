#include "formats/pytorch/text_pool.h"

#include <algorithm>
#include <cstring>

namespace snr::pytorch {

std::string_view TextPool::intern(std::string_view text) {
  if (text.empty()) return {};
  const auto found = index_.find(text);
  if (found != index_.end()) return *found;
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
  const std::string_view kept(copy, text.size());
  index_.insert(kept);
  return kept;
}

}  // namespace snr::pytorch
