#include "compiler/hbm_image.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "common/error.h"
#include "isa/address_map.h"

namespace snr::compiler {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

uint16_t to_bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float from_bf16(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

namespace {

// The value of an element from its hash, shared by value() and the run loop
// of materialize_range() so both give the same bits.
inline float value_from_hash(const GeneratedTensor& t, uint64_t h) {
  const double unit = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  const float v = static_cast<float>(t.offset + t.scale * (2.0 * unit - 1.0));
  return t.type == ElementType::kBf16 ? from_bf16(to_bf16(v)) : v;
}

}  // namespace

uint64_t GeneratedTensor::storage_index(uint64_t r, uint64_t c) const {
  switch (layout) {
    case TensorLayout::kRowMajor: return r * cols + c;
    case TensorLayout::kWeightTiles: {
      const uint64_t col_tiles = cols / 128;
      return ((r / 128) * col_tiles + c / 128) * 128 * 128 + (r % 128) * 128 + (c % 128);
    }
    case TensorLayout::kTransposedTiles: {
      // Stored matrix is the transpose: stored (c, r) of a [cols x rows] matrix.
      const uint64_t col_tiles = rows / 128;
      return ((c / 128) * col_tiles + r / 128) * 128 * 128 + (c % 128) * 128 + (r % 128);
    }
  }
  return 0;
}

uint64_t GeneratedTensor::stream_key(uint64_t seed) const { return splitmix64(seed ^ (stream * 0xD6E8FEB86659FD93ull)); }

float GeneratedTensor::value_of(uint64_t key, uint64_t r, uint64_t c) const {
  const uint64_t row = replicate_rows > 0 ? r % replicate_rows : r;
  return value_from_hash(*this, splitmix64(key + row * cols + c));
}

float GeneratedTensor::value(uint64_t seed, uint64_t r, uint64_t c) const { return value_of(stream_key(seed), r, c); }

std::vector<uint8_t> GeneratedTensor::materialize(uint64_t seed) const {
  std::vector<uint8_t> out(size_bytes());
  for (uint64_t r = 0; r < rows; ++r) {
    for (uint64_t c = 0; c < cols; ++c) {
      const float v = value(seed, r, c);
      const uint64_t at = storage_index(r, c) * element_bytes();
      if (type == ElementType::kBf16) {
        const uint16_t b = to_bf16(v);
        std::memcpy(&out[at], &b, 2);
      } else {
        std::memcpy(&out[at], &v, 4);
      }
    }
  }
  return out;
}

void GeneratedTensor::materialize_range(uint64_t seed, uint64_t from_byte, std::span<uint8_t> out) const {
  const bool tiled = layout != TensorLayout::kRowMajor;
  if (tiled && (rows % 128 != 0 || cols % 128 != 0)) {
    // Partial tiles leave gaps in storage order that the inverse below does
    // not describe; such tensors are small, so make them whole.
    const std::vector<uint8_t> all = materialize(seed);
    std::memcpy(out.data(), all.data() + from_byte, out.size());
    return;
  }
  const uint64_t eb = element_bytes();
  const uint64_t end_byte = from_byte + out.size();
  const uint64_t end_index = (end_byte + eb - 1) / eb;
  const uint64_t key = stream_key(seed);
  // Storage indices come in runs along one logical row (or, transposed, one
  // column) of a tile or matrix: the inverse of storage_index() and its
  // divisions are paid once per run, not per element. Weights are generated
  // on every read of a page never written, so this is the device's hot path.
  for (uint64_t i = from_byte / eb; i < end_index;) {
    uint64_t r = 0, c = 0, run = 0;
    bool along_rows = false;  // consecutive indices step r (transposed tiles), else c
    const uint64_t tile = i / (128 * 128), in_tile = i % (128 * 128);
    switch (layout) {
      case TensorLayout::kRowMajor:
        r = i / cols;
        c = i % cols;
        run = cols - c;
        break;
      case TensorLayout::kWeightTiles:
        r = tile / (cols / 128) * 128 + in_tile / 128;
        c = tile % (cols / 128) * 128 + in_tile % 128;
        run = 128 - in_tile % 128;
        break;
      case TensorLayout::kTransposedTiles:
        c = tile / (rows / 128) * 128 + in_tile / 128;
        r = tile % (rows / 128) * 128 + in_tile % 128;
        run = 128 - in_tile % 128;
        along_rows = true;
        break;
    }
    run = std::min(run, end_index - i);
    // Along a row the hash input is one counter; only the first and last
    // element of the range can be cut, so the rest is stored whole.
    const uint64_t row = replicate_rows > 0 ? r % replicate_rows : r;
    for (uint64_t k = 0; k < run; ++k, ++i) {
      const float v = along_rows ? value_of(key, r + k, c) : value_from_hash(*this, splitmix64(key + row * cols + c + k));
      uint8_t bytes[4];
      if (type == ElementType::kBf16) {
        const uint16_t b = to_bf16(v);
        std::memcpy(bytes, &b, 2);
      } else {
        std::memcpy(bytes, &v, 4);
      }
      const uint64_t element_begin = i * eb;
      if (element_begin >= from_byte && element_begin + eb <= end_byte) [[likely]] {
        if (eb == 2) {
          std::memcpy(out.data() + (element_begin - from_byte), bytes, 2);
        } else {
          std::memcpy(out.data() + (element_begin - from_byte), bytes, 4);
        }
        continue;
      }
      const uint64_t first = std::max(element_begin, from_byte), last = std::min(element_begin + eb, end_byte);
      std::memcpy(out.data() + (first - from_byte), bytes + (first - element_begin), last - first);
    }
  }
}

const GeneratedTensor& ChipHbmImage::tensor(std::string_view name) const {
  for (const auto& t : tensors) {
    if (t.name == name) return t;
  }
  throw Error(fmt::format("compiled model has no tensor '{}'", name));
}

const ExplicitRegion& ChipHbmImage::region(std::string_view name) const {
  for (const auto& r : regions) {
    if (r.name == name) return r;
  }
  throw Error(fmt::format("compiled model has no HBM region '{}'", name));
}

const ChipHbmImage::Output& ChipHbmImage::output(std::string_view name) const {
  for (const auto& o : outputs) {
    if (o.name == name) return o;
  }
  throw Error(fmt::format("compiled model has no output '{}'", name));
}

uint64_t HbmLayout::allocate(uint64_t bytes) {
  const uint64_t address = isa::kHbmBase + next_;
  next_ += (bytes + 4095) / 4096 * 4096;
  return address;
}

}  // namespace snr::compiler
