// The initial HBM contents of a compiled model, stored compactly: large
// tensors (weights, KV cache, inputs) are described by a generator (seed,
// stream, scale) and a storage layout and regenerated on load; small
// compiler-made tables (rotary tables, descriptor chains) are stored as
// explicit bytes. The reference implementation reads logical values through
// the same functions, so compiled code and reference agree by construction
// on what the inputs are.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace snr::compiler {

enum class ElementType : uint8_t { kBf16, kF32 };

// How logical [rows x cols] elements are placed in the region.
enum class TensorLayout : uint8_t {
  kRowMajor,     // element (r, c) at (r * cols + c)
  kWeightTiles,  // 128x128 tiles, tile (r/128, c/128) at index (kt * col_tiles + nt), row-major inside
  kTransposedTiles,  // stored as the transpose [cols x rows] in kWeightTiles order (keys for Q.K^T)
};

struct GeneratedTensor {
  std::string name;
  uint64_t address = 0;  // local HBM address (isa::kHbmBase + offset)
  uint64_t rows = 0, cols = 0;
  ElementType type = ElementType::kBf16;
  TensorLayout layout = TensorLayout::kRowMajor;
  uint64_t stream = 0;   // distinguishes tensors and chips under one seed
  double scale = 1.0;    // values uniform in [offset - scale, offset + scale]
  double offset = 0.0;
  // Logical row r of the tensor holds generated row (r % replicate_rows)
  // when replicate_rows > 0 (norm weights broadcast over 8 sublanes).
  uint64_t replicate_rows = 0;

  [[nodiscard]] uint64_t element_bytes() const { return type == ElementType::kBf16 ? 2 : 4; }
  [[nodiscard]] uint64_t size_bytes() const { return rows * cols * element_bytes(); }
  // Storage index of logical element (r, c).
  [[nodiscard]] uint64_t storage_index(uint64_t r, uint64_t c) const;
  // The exact value of logical element (r, c) (bf16-rounded for bf16).
  [[nodiscard]] float value(uint64_t seed, uint64_t r, uint64_t c) const;
  // All bytes in storage order.
  [[nodiscard]] std::vector<uint8_t> materialize(uint64_t seed) const;
  // Bytes [from_byte, from_byte + out.size()) of materialize(seed), made
  // without the rest of the tensor, so HBM pages can be generated on first
  // touch. Caller guarantees the range lies within size_bytes().
  void materialize_range(uint64_t seed, uint64_t from_byte, std::span<uint8_t> out) const;

 private:
  // value() is value_of(stream_key(seed), r, c); the key is per tensor, so
  // generating a range computes it once.
  [[nodiscard]] uint64_t stream_key(uint64_t seed) const;
  [[nodiscard]] float value_of(uint64_t key, uint64_t r, uint64_t c) const;
};

struct ExplicitRegion {
  std::string name;
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

struct ChipHbmImage {
  std::vector<GeneratedTensor> tensors;
  std::vector<ExplicitRegion> regions;
  // A zero-filled output area (listed so tools can find results).
  struct Output {
    std::string name;
    uint64_t address = 0;
    uint64_t bytes = 0;
  };
  std::vector<Output> outputs;

  [[nodiscard]] const GeneratedTensor& tensor(std::string_view name) const;
  [[nodiscard]] const ExplicitRegion& region(std::string_view name) const;
  [[nodiscard]] const Output& output(std::string_view name) const;
};

// Bump allocator of HBM addresses (4 KiB aligned), identical on every chip.
class HbmLayout {
 public:
  uint64_t allocate(uint64_t bytes);
  [[nodiscard]] uint64_t used_bytes() const { return next_; }

 private:
  uint64_t next_ = 0;
};

}  // namespace snr::compiler
