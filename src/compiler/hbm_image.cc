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

float GeneratedTensor::value(uint64_t seed, uint64_t r, uint64_t c) const {
  const uint64_t row = replicate_rows > 0 ? r % replicate_rows : r;
  const uint64_t h = splitmix64(splitmix64(seed ^ (stream * 0xD6E8FEB86659FD93ull)) + row * cols + c);
  const double unit = static_cast<double>(h >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  const float v = static_cast<float>(offset + scale * (2.0 * unit - 1.0));
  return type == ElementType::kBf16 ? from_bf16(to_bf16(v)) : v;
}

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
  for (uint64_t i = from_byte / eb; i * eb < end_byte; ++i) {
    // Logical (r, c) of storage index i: the inverse of storage_index().
    uint64_t r = 0, c = 0;
    const uint64_t tile = i / (128 * 128), in_tile = i % (128 * 128);
    switch (layout) {
      case TensorLayout::kRowMajor:
        r = i / cols;
        c = i % cols;
        break;
      case TensorLayout::kWeightTiles:
        r = tile / (cols / 128) * 128 + in_tile / 128;
        c = tile % (cols / 128) * 128 + in_tile % 128;
        break;
      case TensorLayout::kTransposedTiles:
        c = tile / (rows / 128) * 128 + in_tile / 128;
        r = tile % (rows / 128) * 128 + in_tile % 128;
        break;
    }
    uint8_t bytes[4];
    const float v = value(seed, r, c);
    if (type == ElementType::kBf16) {
      const uint16_t b = to_bf16(v);
      std::memcpy(bytes, &b, 2);
    } else {
      std::memcpy(bytes, &v, 4);
    }
    // The range may start or end inside an element.
    const uint64_t first = std::max(i * eb, from_byte), last = std::min(i * eb + eb, end_byte);
    std::memcpy(out.data() + (first - from_byte), bytes + (first - i * eb), last - first);
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
