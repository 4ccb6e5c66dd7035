#include "analyze/dependencies.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <tuple>
#include <unordered_map>

namespace snr::analyze {
namespace {

// A lightweight slice longer than this is not address computation any more
// (a loop-carried counter, say); the walk stops there conservatively.
constexpr size_t kMaxSlice = 256;

bool is_register_kind(std::string_view kind) { return kind == "x" || kind == "v"; }
bool is_memory_kind(std::string_view kind) { return kind == "vmem" || kind == "smem" || kind == "hbm"; }

class Walker {
 public:
  explicit Walker(const RunIndex& index) : index_(index), mark_(index.data().instructions.size(), 0) {}

  Backtail walk(uint32_t dma_index, DmaStall& stall, std::vector<DmaDependency>& edges) {
    const auto& data = index_.data();
    const rundb::DmaRecord& dma = data.dmas[dma_index];
    Backtail b;
    b.issue = index_.instruction_of_step(dma.issue_step);
    const uint32_t chip = dma.chip;
    const uint32_t issue_pos = index_.position_in_chip(b.issue);
    ++generation_;
    mark_[b.issue] = generation_;
    int64_t constraint = -1;     // chip-stream position the ISSUE must stay after
    int64_t conservative = -1;
    auto constrain = [&](uint32_t producer) {
      if (index_.instruction(producer).chip != chip) {
        b.blocked = true;
        return;
      }
      constraint = std::max<int64_t>(constraint, index_.position_in_chip(producer));
    };
    std::vector<uint32_t> stack = {b.issue};
    std::map<uint64_t, std::string> producers;  // dma_id -> via
    while (!stack.empty()) {
      const uint32_t node = stack.back();
      stack.pop_back();
      const auto& consumer = index_.instruction(node);
      for (uint32_t e : index_.edges_into(node)) {
        const rundb::DependencyRecord& edge = data.dependencies[e];
        const uint32_t producer = index_.instruction_of_step(edge.producer_step);
        if (producer == RunIndex::kNone) continue;
        if (is_register_kind(edge.kind)) {
          if (node == b.issue) conservative = std::max<int64_t>(conservative, index_.position_in_chip(producer));
          const InstructionClass cls = index_.class_of(producer);
          const bool follow = cls == InstructionClass::kLightweight ||
                              (cls == InstructionClass::kScalarLoad && index_.has_scalar_memory_edges());
          if (follow && index_.instruction(producer).chip == chip && b.slice.size() < kMaxSlice) {
            if (mark_[producer] != generation_) {
              mark_[producer] = generation_;
              b.slice.push_back(producer);
              stack.push_back(producer);
            }
          } else {
            constrain(producer);
          }
        } else if (is_memory_kind(edge.kind)) {
          const uint32_t source = index_.dma_of_step(edge.producer_step);
          if (source == RunIndex::kNone) {
            constrain(producer);  // a store or vector write: not lightweight
            continue;
          }
          const rundb::DmaRecord& src = data.dmas[source];
          // VMEM edges name pages, scalar-memory edges byte addresses.
          const std::string where = edge.kind == "vmem"
                                        ? fmt::format("chip {} vmem pages {}-{}", edge.chip, edge.first, edge.last)
                                        : fmt::format("chip {} {} {:#x}-{:#x}", edge.chip, edge.kind, edge.first, edge.last);
          producers.try_emplace(src.dma_id, fmt::format("{} -> {} at pc {:#x} -> dma.issue at pc {:#x}", where,
                                                        consumer.mnemonic, consumer.pc, dma.pc));
          const uint32_t wait = wait_on_chip(src, chip);
          if (wait != RunIndex::kNone) {
            constrain(wait);
          } else {
            // Its completion is not ordered on this chip inside the window:
            // nothing proves an earlier ISSUE would see the data.
            b.blocked = true;
          }
        }
      }
    }
    std::sort(b.slice.begin(), b.slice.end());
    if (b.blocked) constraint = static_cast<int64_t>(issue_pos) - 1;
    b.earliest_position = static_cast<uint32_t>(std::min<int64_t>(constraint + 1, issue_pos));
    b.conservative_position = static_cast<uint32_t>(std::min<int64_t>(conservative + 1, issue_pos));

    const auto stream = index_.chip_stream(chip);
    const auto& earliest = index_.instruction(stream[b.earliest_position]);
    stall.earliest_issue_step = earliest.step;
    stall.earliest_issue_cycle = earliest.issue_cycle;
    const auto& ready = index_.instruction(stream[b.conservative_position]);
    stall.conservative_ready_step = ready.step;
    stall.conservative_ready_cycle = ready.issue_cycle;
    stall.slice_pcs.clear();
    for (uint32_t i : b.slice) stall.slice_pcs.push_back(index_.instruction(i).pc);
    std::sort(stall.slice_pcs.begin(), stall.slice_pcs.end());
    stall.slice_pcs.erase(std::unique(stall.slice_pcs.begin(), stall.slice_pcs.end()), stall.slice_pcs.end());
    stall.producer_dmas.clear();
    for (auto& [id, via] : producers) {
      stall.producer_dmas.push_back(id);
      edges.push_back({id, dma.dma_id, std::move(via)});
    }
    return b;
  }

 private:
  // The WAIT on `chip` that consumed `src`, kNone when none did in the
  // window. A remote DMA can be consumed on its issuer and on its
  // destination chip while its row keeps one WAIT (the issuer's), so the
  // dependency edges, which name every consumer, are searched.
  [[nodiscard]] uint32_t wait_on_chip(const rundb::DmaRecord& src, uint32_t chip) const {
    if (!src.waited) return RunIndex::kNone;
    if (src.wait_chip == chip) return index_.instruction_of_step(src.wait_step);
    const uint32_t issue = index_.instruction_of_step(src.issue_step);
    if (issue == RunIndex::kNone) return RunIndex::kNone;
    for (uint32_t e : index_.edges_from(issue)) {
      const rundb::DependencyRecord& edge = index_.data().dependencies[e];
      if (edge.kind != "dma" || edge.first != src.dma_id) continue;
      const uint32_t consumer = index_.instruction_of_step(edge.consumer_step);
      if (consumer != RunIndex::kNone && index_.instruction(consumer).chip == chip) return consumer;
    }
    return RunIndex::kNone;
  }

  const RunIndex& index_;
  std::vector<uint32_t> mark_;
  uint32_t generation_ = 0;
};

}  // namespace

std::vector<DmaChain> find_chains(const std::vector<DmaStall>& dmas, const std::vector<DmaDependency>& edges) {
  std::unordered_map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < dmas.size(); ++i) by_id.emplace(dmas[i].dma_id, i);
  std::vector<std::vector<size_t>> successors(dmas.size());
  std::vector<uint32_t> in_degree(dmas.size(), 0);
  for (const DmaDependency& e : edges) {
    auto p = by_id.find(e.producer_dma);
    auto c = by_id.find(e.consumer_dma);
    if (p == by_id.end() || c == by_id.end()) continue;
    const DmaStall& a = dmas[p->second];
    const DmaStall& b = dmas[c->second];
    if (a.chip != b.chip || a.op != b.op) continue;
    successors[p->second].push_back(c->second);
    ++in_degree[c->second];
  }
  for (auto& s : successors) {
    std::sort(s.begin(), s.end(), [&](size_t x, size_t y) { return dmas[x].issue_step < dmas[y].issue_step; });
  }
  std::vector<size_t> heads;
  for (size_t i = 0; i < dmas.size(); ++i) {
    if (in_degree[i] == 0 && !successors[i].empty()) heads.push_back(i);
  }
  std::sort(heads.begin(), heads.end(), [&](size_t x, size_t y) {
    return std::tie(dmas[x].chip, dmas[x].issue_step) < std::tie(dmas[y].chip, dmas[y].issue_step);
  });
  std::vector<bool> taken(dmas.size(), false);
  std::vector<DmaChain> chains;
  for (size_t head : heads) {
    DmaChain chain;
    chain.chip = dmas[head].chip;
    chain.op = dmas[head].op;
    size_t at = head;
    while (true) {
      taken[at] = true;
      chain.dma_ids.push_back(dmas[at].dma_id);
      chain.stall_cycles += dmas[at].stall_cycles();
      chain.base_stall_cycles += dmas[at].base_stall_cycles;
      size_t next = SIZE_MAX;
      for (size_t s : successors[at]) {
        if (!taken[s]) {
          next = s;
          break;
        }
      }
      if (next == SIZE_MAX) break;
      at = next;
    }
    if (chain.dma_ids.size() >= 2) chains.push_back(std::move(chain));
  }
  return chains;
}

DependencyResult analyze_dependencies(const RunIndex& index, std::vector<DmaStall>& dmas) {
  DependencyResult result;
  Walker walker(index);
  result.backtails.reserve(dmas.size());
  for (uint32_t k = 0; k < dmas.size(); ++k) result.backtails.push_back(walker.walk(k, dmas[k], result.edges));
  result.chains = find_chains(dmas, result.edges);
  std::unordered_map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < dmas.size(); ++i) by_id.emplace(dmas[i].dma_id, i);
  for (uint32_t c = 0; c < result.chains.size(); ++c) {
    const auto& ids = result.chains[c].dma_ids;
    for (uint32_t depth = 0; depth < ids.size(); ++depth) {
      DmaStall& d = dmas[by_id.at(ids[depth])];
      d.chain = c;
      d.chain_depth = depth;
    }
  }
  return result;
}

}  // namespace snr::analyze
