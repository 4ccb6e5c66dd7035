// Stable, platform-independent 64-bit hashing (FNV-1a) for identities that
// are stored in files: ISA-table hash, snapshot identity, config digests.
#pragma once

#include <cstdint>
#include <string_view>

namespace snr {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;

constexpr uint64_t fnv1a64(std::string_view data, uint64_t hash = kFnvOffsetBasis) {
  for (char c : data) {
    hash ^= static_cast<uint8_t>(c);
    hash *= kFnvPrime;
  }
  return hash;
}

constexpr uint64_t fnv1a64_u64(uint64_t value, uint64_t hash = kFnvOffsetBasis) {
  for (int i = 0; i < 8; ++i) {
    hash ^= (value >> (8 * i)) & 0xff;
    hash *= kFnvPrime;
  }
  return hash;
}

}  // namespace snr
