#include "compiler/compiler.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "common/error.h"
#include "common/hash.h"
#include "compiler/lowering.h"
#include "isa/address_map.h"

namespace snr::compiler {

// ---- LoweringContext helpers ----

ActBuffer LoweringContext::alloc_act(uint64_t rows, uint64_t cols, const std::string& what) {
  // One vector register of slack: attention's 8-row blocks may run past
  // the last head of the last row (see lower_attention.cc).
  const uint64_t address = vmem.allocate(rows * cols * 4 + kVregBytes, what);
  return {address, rows, cols};
}

uint64_t LoweringContext::add_sharded_tensor(const std::string& name, uint64_t rows, uint64_t cols, ElementType type,
                                             TensorLayout layout, double scale, double offset,
                                             uint64_t replicate_rows) {
  GeneratedTensor t;
  t.name = name;
  t.rows = rows;
  t.cols = cols;
  t.type = type;
  t.layout = layout;
  t.scale = scale;
  t.offset = offset;
  t.replicate_rows = replicate_rows;
  t.address = hbm_layout.allocate(t.size_bytes());
  for (uint32_t c = 0; c < chips; ++c) {
    t.stream = fnv1a64(name) ^ (uint64_t{c} << 48);
    hbm[c].tensors.push_back(t);
  }
  return t.address;
}

uint64_t LoweringContext::add_region(const std::string& name, const std::vector<uint8_t>& bytes) {
  return add_region_per_chip(name, std::vector<std::vector<uint8_t>>(chips, bytes));
}

uint64_t LoweringContext::add_region_per_chip(const std::string& name,
                                              const std::vector<std::vector<uint8_t>>& bytes_per_chip) {
  const uint64_t address = hbm_layout.allocate(bytes_per_chip.front().size());
  for (uint32_t c = 0; c < chips; ++c) hbm[c].regions.push_back({name, address, bytes_per_chip[c]});
  return address;
}

uint64_t LoweringContext::add_output(const std::string& name, uint64_t bytes) {
  const uint64_t address = hbm_layout.allocate(bytes);
  for (uint32_t c = 0; c < chips; ++c) hbm[c].outputs.push_back({name, address, bytes});
  return address;
}

uint64_t LoweringContext::add_data_table(const std::string& label,
                                         const std::vector<std::vector<uint64_t>>& values_per_chip) {
  const uint64_t count = values_per_chip.front().size();
  const uint64_t offset = e.data_label(label, 8 * count);
  for (uint64_t k = 0; k < count; ++k) {
    DataPatch patch{offset + 8 * k, {}};
    for (uint32_t c = 0; c < chips; ++c) patch.value_per_chip.push_back(values_per_chip[c][k]);
    data_patches.push_back(std::move(patch));
  }
  return offset;
}

void LoweringContext::load_to_vmem(uint64_t vmem_address, uint64_t hbm_address, uint64_t bytes) {
  e.dma(vmem_address, hbm_address, bytes, sem::kLoad);
  e.wait(sem::kLoad, 1);
}

namespace {

uint64_t round_up(uint64_t value, uint64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

std::vector<uint8_t> f32_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Everything one compilation needs, owned in one place.
struct Build {
  explicit Build(const Spec& s) : Build(s, hw::load_hardware(s.hardware)) {}
  Build(const Spec& s, hw::LoadedHardware loaded)
      : spec(s),
        hw(std::move(loaded.config)),
        hardware_gives_chips(loaded.gives_chips),
        chips(static_cast<uint32_t>(s.tensor_parallel)),
        vmem(isa::kVmemBase, 0, 512, s.schedule.allocator),
        hbm(chips),
        ctx{spec, hw, chips, emitter, vmem, hbm_layout, hbm, patches} {}

  void init_vmem() {
    // The chips are the tensor-parallel ones; a hardware file that says
    // otherwise used to be overruled without a word.
    if (hardware_gives_chips && hw.chip_count != chips) {
      throw Error(fmt::format("hardware {} gives chips: {}, but parallel.tensor is {} (the model runs on its "
                              "tensor-parallel chips)", spec.hardware, hw.chip_count, chips));
    }
    hw.set("chips", std::to_string(chips));
    hw.validate();
    vmem = VmemAllocator(isa::kVmemBase, hw.vmem_bytes(), hw.vmem_page_bytes.count, spec.schedule.allocator);
  }

  Spec spec;
  hw::HwConfig hw;
  bool hardware_gives_chips;  // the spec's hardware file says `chips`
  uint32_t chips;
  Emitter emitter;
  VmemAllocator vmem;
  HbmLayout hbm_layout;
  std::vector<ChipHbmImage> hbm;
  std::vector<DataPatch> patches;
  LoweringContext ctx;
};

// Reserved receive regions of an all-reduce (two parities each).
struct AllReduceSites {
  uint64_t chunk_bytes = 0;
  uint64_t padded_bytes = 0;
  uint64_t rs_receive[2] = {};
  uint64_t ag_receive[2] = {};
  uint32_t instances = 0;
};

AllReduceSites all_reduce_sites(Build& b, uint64_t bytes) {
  AllReduceSites s;
  s.padded_bytes = round_up(bytes, b.chips * kVregBytes);
  s.chunk_bytes = s.padded_bytes / b.chips;
  // A faster peer writes into these regions as soon as it reaches the
  // collective, which can be long before this chip gets there: they must
  // belong to nothing else for the whole program, so they are reserved
  // before any step-local buffer could take (and later free) their space.
  for (uint32_t parity = 0; parity < 2; ++parity) {
    s.rs_receive[parity] = b.vmem.allocate(s.padded_bytes, fmt::format("reduce-scatter receive {}", parity));
    s.ag_receive[parity] = b.vmem.allocate(s.padded_bytes, fmt::format("all-gather receive {}", parity));
  }
  return s;
}

// partial (padded_bytes in VMEM) -> summed over chips, returned address.
uint64_t emit_all_reduce(Build& b, AllReduceSites& s, const std::string& prefix, uint64_t partial,
                         uint64_t& reduced_out) {
  const uint32_t parity = s.instances++ & 1;
  const uint64_t reduced = b.vmem.allocate(s.chunk_bytes, prefix + " reduced chunk");
  emit_collective(b.ctx, prefix + "reduce_scatter", CollectiveKind::kReduceScatter,
                  {partial, s.rs_receive[parity], reduced, s.chunk_bytes, parity});
  emit_collective(b.ctx, prefix + "all_gather", CollectiveKind::kAllGather,
                  {reduced, s.ag_receive[parity], s.ag_receive[parity], s.chunk_bytes, parity});
  reduced_out = reduced;
  return s.ag_receive[parity];
}

void compile_transformer(Build& b, CompiledModel& out) {
  const Spec& spec = b.spec;
  const TransformerShape& m = spec.model;
  LoweringContext& ctx = b.ctx;
  Emitter& e = b.emitter;
  const uint64_t t = b.chips;
  const uint64_t hl = m.heads / t, kvl = m.kv_heads / t, ffn_local = m.ffn / t;
  const bool decode = spec.phase == Phase::kDecode;
  const uint64_t per_seq = decode ? 1 : spec.sequence;
  const uint64_t real_rows = spec.batch * per_seq;
  const uint64_t rows = round_up(real_rows, 8);
  ctx.real_rows = real_rows;
  out.rows = rows;
  out.real_rows = real_rows;
  AttentionShape shape;
  shape.batch = spec.batch;
  shape.tokens_per_sequence = per_seq;
  shape.heads = hl;
  shape.kv_heads = kvl;
  shape.context = decode ? spec.context : 0;
  shape.cache_capacity = round_up(shape.context + per_seq, 128);

  // Step-wide inputs: the hidden states, rotary tables, the rotate-half matrix.
  GeneratedTensor input;
  input.name = "input";
  input.rows = rows;
  input.cols = m.hidden;
  input.type = ElementType::kF32;
  input.stream = fnv1a64("input");
  input.address = b.hbm_layout.allocate(input.size_bytes());
  for (auto& h : b.hbm) h.tensors.push_back(input);
  std::vector<float> cos(rows * 128), sin(rows * 128);
  for (uint64_t r = 0; r < rows; ++r) {
    const uint64_t pos = r < real_rows ? (decode ? spec.context : r % per_seq) : 0;
    for (uint64_t j = 0; j < 64; ++j) {
      const double freq = std::pow(m.rope_theta, -2.0 * static_cast<double>(j) / 128.0);
      const double angle = static_cast<double>(pos) * freq;
      cos[r * 128 + j] = cos[r * 128 + j + 64] = static_cast<float>(std::cos(angle));
      sin[r * 128 + j] = sin[r * 128 + j + 64] = static_cast<float>(std::sin(angle));
    }
  }
  const uint64_t cos_hbm = ctx.add_region("rope.cos", f32_bytes(cos));
  const uint64_t sin_hbm = ctx.add_region("rope.sin", f32_bytes(sin));
  std::vector<uint8_t> rotate(kTileBytes, 0);
  for (uint64_t n = 0; n < 128; ++n) {
    const uint64_t k = n < 64 ? n + 64 : n - 64;
    const uint16_t v = n < 64 ? 0xBF80 : 0x3F80;  // bf16 -1 / +1
    std::memcpy(&rotate[(k * 128 + n) * 2], &v, 2);
  }
  const uint64_t rotate_hbm = ctx.add_region("rope.rotate_half", rotate);
  const uint64_t output_hbm = ctx.add_output("output", rows * m.hidden * 4);

  // Long-lived VMEM: the residual stream and the all-reduce receive regions.
  const ActBuffer x = ctx.alloc_act(rows, m.hidden, "residual stream");
  AllReduceSites sites;
  if (t > 1) sites = all_reduce_sites(b, rows * m.hidden * 4);
  // The K/V staging is the step's largest buffer (its size follows the
  // context length). Reserved with the other step-long buffers, it sits
  // between them and everything placed later, dead between attentions.
  const bool staging_per_op = spec.schedule.kv_staging == KvStaging::kOp;
  KvStagingBuffers staging;
  if (!staging_per_op) staging = reserve_kv_staging(ctx, shape);
  e.begin_op("load_input", "dma", 0, input.size_bytes(), fmt::format("[{}x{}] f32", rows, m.hidden));
  ctx.load_to_vmem(x.address, input.address, input.size_bytes());
  e.end_op();

  const uint64_t qkv_cols = (hl + 2 * kvl) * 128;
  const uint64_t partial_bytes = std::max(sites.padded_bytes, rows * m.hidden * 4) + kVregBytes;
  for (uint64_t layer = 0; layer < m.layers; ++layer) {
    const std::string p = fmt::format("layer{}.", layer);
    const uint64_t layer_begin = e.instruction_count();
    auto tensor = [&](const std::string& n, uint64_t r, uint64_t c, double scale, TensorLayout layout,
                      ElementType type = ElementType::kBf16, double offset = 0.0, uint64_t replicate = 0) {
      return ctx.add_sharded_tensor(p + n, r, c, type, layout, scale, offset, replicate);
    };
    const uint64_t attn_norm = tensor("attn_norm", 8, m.hidden, 0.1, TensorLayout::kRowMajor, ElementType::kF32, 1.0, 1);
    const uint64_t wqkv = tensor("wqkv", m.hidden, qkv_cols, 1.0 / std::sqrt(double(m.hidden)), TensorLayout::kWeightTiles);
    const uint64_t wo = tensor("wo", hl * 128, m.hidden, 1.0 / std::sqrt(double(m.heads * 128)), TensorLayout::kWeightTiles);
    const uint64_t k_cache = tensor("k_cache", spec.batch * kvl * shape.cache_capacity, 128, 1.0, TensorLayout::kTransposedTiles);
    const uint64_t v_cache = tensor("v_cache", spec.batch * kvl * shape.cache_capacity, 128, 1.0, TensorLayout::kRowMajor);
    const uint64_t mlp_norm = tensor("mlp_norm", 8, m.hidden, 0.1, TensorLayout::kRowMajor, ElementType::kF32, 1.0, 1);
    const uint64_t w_gate = tensor("w_gate", m.hidden, ffn_local, 1.0 / std::sqrt(double(m.hidden)), TensorLayout::kWeightTiles);
    const uint64_t w_up = tensor("w_up", m.hidden, ffn_local, 1.0 / std::sqrt(double(m.hidden)), TensorLayout::kWeightTiles);
    const uint64_t w_down = tensor("w_down", ffn_local, m.hidden, 1.0 / std::sqrt(double(m.ffn)), TensorLayout::kWeightTiles);

    // Attention block.
    const ActBuffer h = ctx.alloc_act(rows, m.hidden, p + "attn.norm out");
    emit_rmsnorm(ctx, p + "attn.rmsnorm", x, attn_norm, h);
    const ActBuffer qkv = ctx.alloc_act(rows, qkv_cols, p + "attn.qkv");
    emit_matmul(ctx, p + "attn.qkv_matmul", h, wqkv, m.hidden, qkv_cols, qkv);
    ctx.free_act(h);
    emit_rope(ctx, p + "attn.rope", qkv, hl + kvl, hl, cos_hbm, sin_hbm, rotate_hbm);
    emit_kv_write(ctx, p + "attn.kv_cache_write", qkv, shape, k_cache, v_cache);
    const ActBuffer attn = ctx.alloc_act(rows, hl * 128, p + "attn.context");
    if (staging_per_op) staging = reserve_kv_staging(ctx, shape);
    emit_attention(ctx, p + "attn.attention", qkv, shape, staging, k_cache, v_cache, attn);
    if (staging_per_op) release_kv_staging(ctx, staging);
    ctx.free_act(qkv);
    const uint64_t partial = b.vmem.allocate(partial_bytes, p + "attn.o partial");
    emit_matmul(ctx, p + "attn.o_matmul", attn, wo, hl * 128, m.hidden, ActBuffer{partial, rows, m.hidden});
    ctx.free_act(attn);
    uint64_t summed = partial, reduced = 0;
    if (t > 1) summed = emit_all_reduce(b, sites, p + "attn.", partial, reduced);
    emit_residual_add(ctx, p + "attn.residual_add", x, summed);
    b.vmem.release(partial);
    if (reduced != 0) b.vmem.release(reduced);

    // MLP block.
    const ActBuffer h2 = ctx.alloc_act(rows, m.hidden, p + "mlp.norm out");
    emit_rmsnorm(ctx, p + "mlp.rmsnorm", x, mlp_norm, h2);
    const ActBuffer gate = ctx.alloc_act(rows, ffn_local, p + "mlp.gate");
    const ActBuffer up = ctx.alloc_act(rows, ffn_local, p + "mlp.up");
    emit_matmul(ctx, p + "mlp.gate_matmul", h2, w_gate, m.hidden, ffn_local, gate);
    emit_matmul(ctx, p + "mlp.up_matmul", h2, w_up, m.hidden, ffn_local, up);
    ctx.free_act(h2);
    emit_gated_activation(ctx, p + "mlp.activation", gate, up, m.activation);
    ctx.free_act(up);
    const uint64_t partial2 = b.vmem.allocate(partial_bytes, p + "mlp.down partial");
    emit_matmul(ctx, p + "mlp.down_matmul", gate, w_down, ffn_local, m.hidden, ActBuffer{partial2, rows, m.hidden});
    ctx.free_act(gate);
    uint64_t summed2 = partial2, reduced2 = 0;
    if (t > 1) summed2 = emit_all_reduce(b, sites, p + "mlp.", partial2, reduced2);
    emit_residual_add(ctx, p + "mlp.residual_add", x, summed2);
    b.vmem.release(partial2);
    if (reduced2 != 0) b.vmem.release(reduced2);
    if (layer == 0) out.image.layer_instructions = e.instruction_count() - layer_begin;
  }
  e.begin_op("store_output", "dma", 0, rows * m.hidden * 4, fmt::format("[{}x{}] f32", rows, m.hidden));
  e.dma(output_hbm, x.address, rows * m.hidden * 4, sem::kStore);
  e.wait(sem::kStore, 1);
  e.end_op();
}

void compile_collective(Build& b) {
  const Spec& spec = b.spec;
  LoweringContext& ctx = b.ctx;
  Emitter& e = b.emitter;
  const uint64_t t = b.chips, bytes = spec.collective_bytes_per_chip;
  const CollectiveOp op = spec.collective;
  const uint64_t chunk = op == CollectiveOp::kAllGather ? bytes : bytes / t;
  const uint64_t out_bytes = op == CollectiveOp::kAllGather ? bytes * t : op == CollectiveOp::kReduceScatter ? chunk : bytes;
  ctx.real_rows = 0;
  GeneratedTensor input;
  input.name = "input";
  input.rows = bytes / 512;
  input.cols = 128;
  input.type = ElementType::kF32;
  input.address = b.hbm_layout.allocate(bytes);
  for (uint32_t c = 0; c < t; ++c) {
    input.stream = fnv1a64("input") ^ (uint64_t{c} << 48);
    b.hbm[c].tensors.push_back(input);
  }
  const uint64_t output_hbm = ctx.add_output("output", out_bytes);
  const uint64_t source = b.vmem.allocate(bytes, "collective input");
  const uint64_t receive = b.vmem.allocate(chunk * t, "collective receive");
  e.begin_op("load_input", "dma", 0, bytes, fmt::format("{} bytes", bytes));
  ctx.load_to_vmem(source, input.address, bytes);
  e.end_op();
  const std::string name(collective_op_name(op));
  uint64_t result = receive;
  switch (op) {
    case CollectiveOp::kAllGather:
      emit_collective(ctx, "all_gather", CollectiveKind::kAllGather, {source, receive, receive, chunk, 0});
      break;
    case CollectiveOp::kAllToAll:
      emit_collective(ctx, "all_to_all", CollectiveKind::kAllToAll, {source, receive, receive, chunk, 0});
      break;
    case CollectiveOp::kReduceScatter:
    case CollectiveOp::kAllReduce: {
      result = b.vmem.allocate(chunk, "reduced chunk");
      emit_collective(ctx, "reduce_scatter", CollectiveKind::kReduceScatter, {source, receive, result, chunk, 0});
      if (op == CollectiveOp::kAllReduce) {
        const uint64_t gathered = b.vmem.allocate(bytes, "all-gather receive");
        emit_collective(ctx, "all_gather", CollectiveKind::kAllGather, {result, gathered, gathered, chunk, 0});
        result = gathered;
      }
      break;
    }
  }
  e.begin_op("store_output", "dma", 0, out_bytes, fmt::format("{} bytes", out_bytes));
  e.dma(output_hbm, result, out_bytes, sem::kStore);
  e.wait(sem::kStore, 1);
  e.end_op();
}

}  // namespace

int ModelImage::op_at(uint64_t pc) const {
  size_t lo = 0, hi = ops.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (ops[mid].pc_end <= pc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo < ops.size() && ops[lo].pc_begin <= pc && pc < ops[lo].pc_end) return static_cast<int>(lo);
  return -1;
}

CompiledModel compile(const Spec& spec) {
  spec.validate();
  Build b(spec);
  b.init_vmem();
  CompiledModel out;
  out.spec = spec;
  if (spec.kind == WorkloadKind::kTransformer) {
    compile_transformer(b, out);
  } else {
    compile_collective(b);
  }
  b.emitter.exit_with(0);
  // .data must not be empty for the setup-phase scratch to have an address.
  b.emitter.data_label("end_of_tables", 8);
  elf::Image program = b.emitter.builder().build().value();
  const elf::Section& text = program.sections.at(0);
  const elf::Section& tables = program.sections.at(1);
  if (tables.address + tables.size_bytes > b.hw.smem_bytes.count) {
    throw Error(fmt::format("{}: the program ({} bytes of text, {} of tables) does not fit SMEM ({} bytes); "
                            "compile fewer layers",
                            spec.source_name, text.size_bytes, tables.size_bytes, b.hw.smem_bytes.count));
  }
  if (b.hbm_layout.used_bytes() > b.hw.hbm_bytes.count) {
    throw Error(fmt::format("{}: weights, KV cache and tables need {} bytes of HBM per chip, the chips have {}",
                            spec.source_name, b.hbm_layout.used_bytes(), b.hw.hbm_bytes.count));
  }
  ModelImage& image = out.image;
  image.name = spec.source_name;
  image.hw = b.hw;
  image.seed = spec.seed;
  for (const EmittedOp& op : b.emitter.ops()) {
    image.ops.push_back({op.name, op.kind, text.address + op.text_begin, text.address + op.text_end, op.flops,
                         op.hbm_bytes, op.network_bytes, op.detail});
  }
  for (uint32_t c = 0; c < b.chips; ++c) {
    elf::Image chip = program;
    std::vector<uint8_t>& data = chip.sections.at(1).data;
    for (const DataPatch& patch : b.patches) std::memcpy(&data.at(patch.data_offset), &patch.value_per_chip[c], 8);
    // The loadable view, as the ELF writer will lay it out.
    chip.segments.clear();
    for (const elf::Section& s : chip.sections) {
      if (!s.alloc) continue;
      const uint32_t flags = elf::kSegmentRead | (s.write ? elf::kSegmentWrite : 0u) |
                             (s.execute ? elf::kSegmentExecute : 0u);
      chip.segments.push_back({s.address, s.size_bytes, flags, s.data});
    }
    image.programs.push_back(std::move(chip));
  }
  image.hbm = std::move(b.hbm);
  out.vmem = b.vmem.stats();
  return out;
}

}  // namespace snr::compiler
