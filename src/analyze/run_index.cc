#include "analyze/run_index.h"

#include <fmt/format.h>
#include <unordered_map>

#include "common/error.h"
#include "isa/isa.h"

namespace snr::analyze {

InstructionClass classify_mnemonic(std::string_view mnemonic) {
  const isa::InstructionRow* row = isa::find_row(mnemonic);
  if (row == nullptr) return InstructionClass::kOther;
  switch (row->effect) {
    case isa::Effect::kLoad: return InstructionClass::kScalarLoad;
    case isa::Effect::kStore: return InstructionClass::kScalarStore;
    case isa::Effect::kDma1d:
    case isa::Effect::kDma2d: return InstructionClass::kDmaIssue;
    case isa::Effect::kSemWait: return InstructionClass::kWait;
    case isa::Effect::kSemSignalLocal:
    case isa::Effect::kSemSignalRemote:
    case isa::Effect::kSemRead: return InstructionClass::kSemaphore;
    case isa::Effect::kNone:
    case isa::Effect::kPcRead:
      if (row->latency == isa::LatencyClass::kScalarAlu || row->latency == isa::LatencyClass::kScalarMulDiv) {
        return InstructionClass::kLightweight;
      }
      return InstructionClass::kOther;
    default: return InstructionClass::kOther;
  }
}

RunIndex::RunIndex(const rundb::RunData& data) : data_(data) {
  const auto& insts = data.instructions;
  if (insts.size() >= kNone) throw Error("run data: too many instructions to analyze");
  uint64_t max_step = 0;
  uint32_t chips = 0;
  for (const auto& chip : data.chips) chips = std::max(chips, chip.chip + 1);
  for (const auto& r : insts) {
    max_step = std::max(max_step, r.step);
    chips = std::max(chips, r.chip + 1);
  }
  // Steps are the dense global issue order; a gap this large is corrupt data,
  // not a reason to allocate for it.
  if (!insts.empty() && max_step > 2 * insts.size() + 1024) {
    throw Error(fmt::format("run data: step {} among only {} instructions", max_step, insts.size()));
  }
  inst_of_step_.assign(insts.empty() ? 0 : max_step + 1, kNone);
  class_.resize(insts.size());
  position_.resize(insts.size());
  chip_streams_.resize(chips);
  // One classification per distinct mnemonic text (the views share storage).
  std::unordered_map<const char*, InstructionClass> classes;
  for (uint32_t i = 0; i < insts.size(); ++i) {
    const auto& r = insts[i];
    if (inst_of_step_[r.step] != kNone) throw Error(fmt::format("run data: step {} appears twice", r.step));
    inst_of_step_[r.step] = i;
    auto it = classes.find(r.mnemonic.data());
    if (it == classes.end()) it = classes.emplace(r.mnemonic.data(), classify_mnemonic(r.mnemonic)).first;
    class_[i] = it->second;
  }
  // Chip streams in step order (steps are the global issue order).
  for (uint64_t step = 0; step < inst_of_step_.size(); ++step) {
    const uint32_t i = inst_of_step_[step];
    if (i == kNone) continue;
    auto& stream = chip_streams_[insts[i].chip];
    position_[i] = static_cast<uint32_t>(stream.size());
    stream.push_back(i);
  }
  dma_of_inst_.assign(insts.size(), kNone);
  uint64_t max_id = 0;
  for (const auto& d : data.dmas) max_id = std::max(max_id, d.dma_id);
  if (!data.dmas.empty() && max_id > 2 * data.dmas.size() + 1024) {
    throw Error(fmt::format("run data: DMA id {} among only {} DMAs", max_id, data.dmas.size()));
  }
  dma_by_id_.assign(data.dmas.empty() ? 0 : max_id + 1, kNone);
  for (uint32_t k = 0; k < data.dmas.size(); ++k) {
    const auto& d = data.dmas[k];
    if (dma_by_id_[d.dma_id] != kNone) throw Error(fmt::format("run data: DMA id {} appears twice", d.dma_id));
    dma_by_id_[d.dma_id] = k;
    const uint32_t i = instruction_of_step(d.issue_step);
    if (i != kNone) dma_of_inst_[i] = k;
  }
  // Edges grouped by consumer instruction (counting sort).
  edge_begin_.assign(insts.size() + 1, 0);
  const auto& deps = data.dependencies;
  reads_.assign(insts.size(), 0);
  writes_.assign(insts.size(), 0);
  for (const auto& e : deps) {
    const uint32_t c = instruction_of_step(e.consumer_step);
    if (c != kNone) ++edge_begin_[c + 1];
    const bool x = e.kind == "x";
    if ((x || e.kind == "v") && e.first < 32) {
      const uint64_t bit = uint64_t{1} << (e.first + (x ? 0 : 32));
      if (c != kNone) reads_[c] |= bit;
      const uint32_t p = instruction_of_step(e.producer_step);
      if (p != kNone) writes_[p] |= bit;
    }
    if (e.kind == "smem" || e.kind == "hbm") has_scalar_memory_edges_ = true;
  }
  for (size_t i = 1; i < edge_begin_.size(); ++i) edge_begin_[i] += edge_begin_[i - 1];
  edges_by_consumer_.resize(edge_begin_.back());
  std::vector<uint32_t> fill(edge_begin_.begin(), edge_begin_.end() - 1);
  for (uint32_t k = 0; k < deps.size(); ++k) {
    const uint32_t c = instruction_of_step(deps[k].consumer_step);
    if (c != kNone) edges_by_consumer_[fill[c]++] = k;
  }
  out_begin_.assign(insts.size() + 1, 0);
  for (const auto& e : deps) {
    const uint32_t p = instruction_of_step(e.producer_step);
    if (p != kNone) ++out_begin_[p + 1];
  }
  for (size_t i = 1; i < out_begin_.size(); ++i) out_begin_[i] += out_begin_[i - 1];
  edges_by_producer_.resize(out_begin_.back());
  fill.assign(out_begin_.begin(), out_begin_.end() - 1);
  for (uint32_t k = 0; k < deps.size(); ++k) {
    const uint32_t p = instruction_of_step(deps[k].producer_step);
    if (p != kNone) edges_by_producer_[fill[p]++] = k;
  }
}

}  // namespace snr::analyze
