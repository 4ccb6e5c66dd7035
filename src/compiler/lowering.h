// Shared state of the lowering passes (matmul, vector ops, attention,
// collectives): the spec and hardware, the emitter, the VMEM allocator and
// the per-chip HBM images. Every pass emits the same code for every chip
// (SPMD); what differs per chip lives in HBM and in the .data tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/emitter.h"
#include "compiler/hbm_image.h"
#include "compiler/spec.h"
#include "compiler/vmem_allocator.h"
#include "hw/config.h"

namespace snr::compiler {

// Semaphores of compiled code. Remote DMAs signal the same index on the
// destination chip, so local streams and collectives never share one.
namespace sem {
constexpr uint8_t kWeights = 0;     // weight tile streams
constexpr uint8_t kLoad = 1;        // activations, norm weights, tables
constexpr uint8_t kStore = 2;       // KV-cache writes and outputs
constexpr uint8_t kSetup = 3;       // all-gather setup phase (HBM -> SMEM): + chain (3 chains)
constexpr uint8_t kCollectiveBase = 8;  // + 2 * kind + parity
// Attention K/V staging: keys 16 + parity, values 18 + parity, where the
// parity alternates between head groups (double-buffered staging).
constexpr uint8_t kKvBase = 16;
}  // namespace sem

constexpr uint64_t kTileBytes = 128 * 128 * 2;  // one bf16 weight tile
constexpr uint64_t kVregBytes = 4096;           // 8 rows x 128 lanes x f32

// An f32 activation [rows x cols] in VMEM, row-major, rows a multiple of 8.
struct ActBuffer {
  uint64_t address = 0;
  uint64_t rows = 0;
  uint64_t cols = 0;
  [[nodiscard]] uint64_t stride_bytes() const { return cols * 4; }
  [[nodiscard]] uint64_t bytes() const { return rows * cols * 4; }
  [[nodiscard]] uint64_t tile(uint64_t row_group, uint64_t col_tile) const {
    return address + row_group * 8 * stride_bytes() + col_tile * 512;
  }
};

// A u64 in .data whose value differs per chip (collective address tables).
struct DataPatch {
  uint64_t data_offset = 0;
  std::vector<uint64_t> value_per_chip;
};

struct LoweringContext {
  const Spec& spec;
  const hw::HwConfig& hw;
  uint32_t chips;
  Emitter& e;
  VmemAllocator& vmem;
  HbmLayout& hbm_layout;
  std::vector<ChipHbmImage>& hbm;  // per chip
  std::vector<DataPatch>& data_patches;
  uint64_t real_rows = 0;  // tokens in a step (before padding to 8)

  ActBuffer alloc_act(uint64_t rows, uint64_t cols, const std::string& what);
  void free_act(const ActBuffer& buffer) { vmem.release(buffer.address); }
  // Adds one generated tensor per chip at the same HBM address; the stream
  // differs per chip, so each chip holds its own shard.
  uint64_t add_sharded_tensor(const std::string& name, uint64_t rows, uint64_t cols, ElementType type,
                              TensorLayout layout, double scale, double offset = 0.0, uint64_t replicate_rows = 0);
  // Same bytes on every chip at one HBM address.
  uint64_t add_region(const std::string& name, const std::vector<uint8_t>& bytes);
  uint64_t add_output(const std::string& name, uint64_t bytes);
  // Per-chip bytes at one HBM address (descriptor tables).
  uint64_t add_region_per_chip(const std::string& name, const std::vector<std::vector<uint8_t>>& bytes_per_chip);
  // A table of T u64 in .data whose values differ per chip.
  uint64_t add_data_table(const std::string& label, const std::vector<std::vector<uint64_t>>& values_per_chip);
  // DMA an HBM region into VMEM and wait for it.
  void load_to_vmem(uint64_t vmem_address, uint64_t hbm_address, uint64_t bytes);
};

// A sequence of 128x128 bf16 tiles DMA'd from HBM into a ring of VMEM
// slots and consumed in order. The DMA of tile i + prefetch_distance is
// issued right before tile i is waited for, so distance 0 issues each DMA
// just before its WAIT and exposes its whole base latency.
class TileStream {
 public:
  TileStream(LoweringContext& ctx, uint64_t ring_address, std::vector<uint64_t> hbm_tiles);
  // Issues what the prefetch distance allows, waits for tile i and returns
  // its VMEM slot. Tiles must be acquired in order 0, 1, 2, ...
  uint64_t acquire(size_t i);

 private:
  LoweringContext& ctx_;
  uint64_t ring_;
  std::vector<uint64_t> tiles_;
  size_t issued_ = 0;
};

// Y[rows x N] = X[rows x K] . W[K x N]: W in HBM as 128x128 bf16 tiles,
// streamed into VMEM slots with the spec's prefetch distance and buffering,
// f32 accumulation in the matrix units.
void emit_matmul(LoweringContext& ctx, const std::string& name, const ActBuffer& x, uint64_t weight_hbm,
                 uint64_t k, uint64_t n, const ActBuffer& y, uint64_t col_offset_tiles = 0);

// Vector-unit ops (lower_vector.cc).
void emit_rmsnorm(LoweringContext& ctx, const std::string& name, const ActBuffer& x, uint64_t gamma_hbm,
                  const ActBuffer& y);
void emit_rope(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv, uint64_t heads_to_rotate,
               uint64_t q_heads, uint64_t cos_hbm, uint64_t sin_hbm, uint64_t rotate_half_hbm);
void emit_gated_activation(LoweringContext& ctx, const std::string& name, const ActBuffer& gate,
                           const ActBuffer& up, Activation activation);
void emit_residual_add(LoweringContext& ctx, const std::string& name, const ActBuffer& x, uint64_t y_address);

// Attention (lower_attention.cc). Rows of the qkv buffer are tokens
// (b * tokens_per_sequence + s); columns are [q heads | k heads | v heads]
// of this chip, 128 wide each.
struct AttentionShape {
  uint64_t batch = 0;
  uint64_t tokens_per_sequence = 0;  // 1 for decode
  uint64_t heads = 0;     // query heads on this chip
  uint64_t kv_heads = 0;  // key/value heads on this chip
  uint64_t context = 0;   // tokens already cached; the new ones follow
  uint64_t cache_capacity = 0;  // positions per (sequence, kv head), multiple of 128
  [[nodiscard]] uint64_t group() const { return heads / kv_heads; }
  // HBM offset of key tile (b, kv head, position tile); keys are stored
  // transposed ([dim][position]) so a tile is a matrix-unit weight.
  [[nodiscard]] uint64_t tile_offset(uint64_t b, uint64_t kvh, uint64_t pt) const {
    return ((b * kv_heads + kvh) * (cache_capacity / 128) + pt) * kTileBytes;
  }
};

// VMEM staging of one head group's keys and values (every 128-position
// tile of the cache it reads: its size follows the context length), two of
// each so consecutive head groups can overlap. Every layer's attention has
// the same shape; with schedule.kv_staging = step the staging is reserved
// at the first attention and kept, with `op` each attention allocates and
// frees its own.
struct KvStagingBuffers {
  uint64_t keys[2] = {};
  uint64_t values[2] = {};
  uint64_t tiles = 0;  // capacity of each buffer in 128x128 tiles
};
KvStagingBuffers reserve_kv_staging(LoweringContext& ctx, const AttentionShape& shape);
void release_kv_staging(LoweringContext& ctx, const KvStagingBuffers& staging);

// Writes the new tokens' keys and values (bf16) into the HBM KV cache.
void emit_kv_write(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv, const AttentionShape& shape,
                   uint64_t k_cache_hbm, uint64_t v_cache_hbm);
// softmax(Q K^T) V with causal masking, reading K/V tiles from the cache.
void emit_attention(LoweringContext& ctx, const std::string& name, const ActBuffer& qkv,
                    const AttentionShape& shape, const KvStagingBuffers& staging, uint64_t k_cache_hbm,
                    uint64_t v_cache_hbm, const ActBuffer& out);

// Collectives over the T chips (lower_collective.cc), written with remote
// DMAs whose global destination addresses carry the peer's chip id. Every
// buffer is in VMEM; `chunk_bytes` is a multiple of 4096. Peers' addresses
// come from per-chip tables: the all-gather finds them through its setup
// phase (spec.schedule.allgather_setup), the others read them from SMEM.
enum class CollectiveKind : uint8_t { kReduceScatter = 0, kAllGather = 1, kAllToAll = 2 };

struct CollectiveBuffers {
  uint64_t source = 0;   // RS, A2A: T chunks; AG: one chunk
  uint64_t receive = 0;  // T chunks, written by peers (reserved for this site)
  uint64_t result = 0;   // RS: one reduced chunk; AG, A2A: == receive
  uint64_t chunk_bytes = 0;
  uint32_t parity = 0;   // alternates between instances so peers never overrun a buffer in use
};

void emit_collective(LoweringContext& ctx, const std::string& name, CollectiveKind kind,
                     const CollectiveBuffers& buffers);

}  // namespace snr::compiler
