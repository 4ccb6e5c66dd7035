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

// The 53 high bits of a hash as an exact double, assembled from two halves
// of at most 52 bits placed in a double's mantissa: the same value as a
// plain conversion, but in operations vector units have (packed uint64 to
// double needs AVX-512), so the run loops below vectorize.
inline double top53_of(uint64_t h) {
  constexpr uint64_t kExponent52 = 0x4330000000000000ull;  // 2^52 with an empty mantissa
  const uint64_t x = h >> 11;
  const uint64_t hi_bits = kExponent52 | (x >> 1), lo_bits = kExponent52 | (x & 1);
  double hi, lo;
  std::memcpy(&hi, &hi_bits, 8);
  std::memcpy(&lo, &lo_bits, 8);
  return 2.0 * (hi - 4503599627370496.0) + (lo - 4503599627370496.0);
}

// The value of an element from its hash, shared by value() and the run loops
// of materialize_range() so all give the same bits. Written so that no
// multiply-add can be fused (the run loops are built without FMA).
inline float f32_from_hash(double offset, double scale, uint64_t h) {
  const double unit = top53_of(h) * (1.0 / 9007199254740992.0);  // [0, 1)
  return static_cast<float>(offset + scale * (2.0 * unit - 1.0));
}

inline float value_from_hash(const GeneratedTensor& t, uint64_t h) {
  const float v = f32_from_hash(t.offset, t.scale, h);
  return t.type == ElementType::kBf16 ? from_bf16(to_bf16(v)) : v;
}

// Run loops: a generic build and an AVX2 one (no FMA: results identical),
// picked at load time. Weights are generated on every read of a page never
// written, so these are the device's hot path.
[[gnu::target_clones("default", "avx2")]] void generate_bf16_run(const uint64_t* inputs, uint64_t count, double offset,
                                                                  double scale, uint16_t* out) {
  for (uint64_t k = 0; k < count; ++k) out[k] = to_bf16(f32_from_hash(offset, scale, splitmix64(inputs[k])));
}

[[gnu::target_clones("default", "avx2")]] void generate_f32_run(const uint64_t* inputs, uint64_t count, double offset,
                                                                 double scale, float* out) {
  for (uint64_t k = 0; k < count; ++k) out[k] = f32_from_hash(offset, scale, splitmix64(inputs[k]));
}

// Elements generated per inner loop: a tile row, so runs rarely split.
constexpr uint64_t kRunElements = 128;

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
    while (run > 0) {
      const uint64_t count = std::min<uint64_t>(run, kRunElements);
      // Hash inputs first (a counter along a row; a stride of `cols` down a
      // column, wrapping at replicate_rows), then one branch-free loop turns
      // them into stored elements.
      uint64_t inputs[kRunElements];
      if (along_rows) {
        for (uint64_t k = 0; k < count; ++k) {
          const uint64_t row = replicate_rows > 0 ? (r + k) % replicate_rows : r + k;
          inputs[k] = key + row * cols + c;
        }
        r += count;
      } else {
        const uint64_t first = key + (replicate_rows > 0 ? r % replicate_rows : r) * cols + c;
        for (uint64_t k = 0; k < count; ++k) inputs[k] = first + k;
        c += count;
      }
      alignas(16) uint8_t bytes[kRunElements * 4];
      if (type == ElementType::kBf16) {
        uint16_t values[kRunElements];
        generate_bf16_run(inputs, count, offset, scale, values);
        std::memcpy(bytes, values, count * 2);
      } else {
        float values[kRunElements];
        generate_f32_run(inputs, count, offset, scale, values);
        std::memcpy(bytes, values, count * 4);
      }
      // Only the first and last element of the whole range can be cut.
      const uint64_t run_begin = std::max(i * eb, from_byte), run_end = std::min((i + count) * eb, end_byte);
      std::memcpy(out.data() + (run_begin - from_byte), bytes + (run_begin - i * eb), run_end - run_begin);
      i += count;
      run -= count;
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
