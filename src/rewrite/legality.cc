#include "rewrite/legality.h"

#include <algorithm>
#include <deque>
#include <fmt/format.h>
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "isa/access.h"
#include "isa/disasm.h"
#include "replay/replayer.h"
#include "replay/trace_load.h"
#include "sim/executor.h"

namespace snr::rewrite {
namespace {

using isa::Effect;

enum class ResKind : uint8_t { kX, kV, kCsr, kSem, kMxuWeights, kMxuAcc, kBarrier, kMem };

// One read or write of one dynamic instruction. Registers, semaphores and
// matrix-unit state are named by (kind, owner, index); memory by owner chip
// and a local byte range [start, end).
struct Access {
  uint64_t dyn = 0;
  ResKind kind = ResKind::kX;
  bool write = false;
  uint32_t owner = 0;
  uint64_t start = 0;  // register index, or first byte
  uint64_t end = 0;    // memory only: one past the last byte
  int64_t via_dma = -1;  // a wait/fence standing for this DMA's in-flight effect
};

struct Ref {
  uint64_t dyn;
  uint32_t access;
};

constexpr uint32_t kPageShift = 12;
// Larger strided regions are indexed by their bounding range (conservative).
constexpr uint64_t kMaxExpandedRows = 4096;

uint64_t state_key(ResKind kind, uint32_t owner, uint64_t index) {
  return (uint64_t{static_cast<uint8_t>(kind)} << 56) | (uint64_t{owner} << 32) | index;
}
uint64_t page_key(uint32_t owner, uint64_t page) { return (uint64_t{owner} << 48) | page; }

struct ChipLog {
  const std::vector<uint64_t>* pcs = nullptr;
  std::vector<int64_t> traversal_start;  // per dyn: first dyn of its span traversal, -1 outside spans
  std::vector<uint64_t> recorded;        // dyns inside spans, ascending
  std::vector<uint32_t> access_begin;    // per recorded dyn (parallel to `recorded`)
  std::vector<Access> accesses;
  // Per resource (state key or memory page): every access, and the writes
  // alone, so a moved read skips other reads without visiting them.
  std::unordered_map<uint64_t, std::vector<Ref>> states, state_writes;
  std::unordered_map<uint64_t, std::vector<Ref>> pages, page_writes;
  // Every dynamic read and write of each x register, in or out of spans
  // (ascending dyns): which write a read sees, and whether a moved write's
  // value is still needed after its old place.
  std::array<std::vector<uint64_t>, 32> x_reads, x_writes;
};

struct DmaInfo {
  uint32_t chip = 0;
  uint64_t pc = 0;
  std::vector<isa::MemoryRegion> regions;
};

struct Token {
  int64_t dma = -1;   // the DMA whose completion this is, -1 for a signal
  uint32_t from = 0;  // chip whose instruction or DMA produced it
  uint64_t units = 0;
};

std::string mnemonic_at(const RewritePlan& plan, uint64_t pc) {
  if (!plan.contains(pc)) return "instruction";
  const isa::DecodedInstruction d = isa::decode(plan.old_words[plan.slot(pc)]);
  return d.valid() ? std::string(d.row->mnemonic) : std::string("instruction");
}

class Checker {
 public:
  Checker(const replay::ReplayInput& input, const RewritePlan& plan, LegalityResult& result)
      : input_(input), plan_(plan), result_(result) {}

  void run() {
    const hw::HwConfig config = replay::replay_hw_config(input_, {});
    replay::LoadedReplay loaded = replay::load_replay(input_, config, nullptr);
    system_ = loaded.system.get();
    const uint32_t chips = system_->chip_count();
    logs_.resize(chips);
    tokens_.resize(chips);
    outstanding_.resize(chips);
    for (const replay::ReplayChip& chip : input_.chips) {
      if (chip.recorded && !chip.pcs.empty()) logs_[chip.chip].pcs = &chip.pcs;
    }
    for (uint32_t c = 0; c < chips; ++c) {
      if (logs_[c].pcs == nullptr) continue;
      if (std::optional<std::string> why = find_traversals(c)) {
        result_.reason = *why;
        return;
      }
    }
    execute();
    for (const ChipLog& log : logs_) result_.recorded_accesses += log.accesses.size();
    for (uint32_t c = 0; c < chips; ++c) {
      if (logs_[c].pcs == nullptr) continue;
      if (std::optional<std::string> why = check_chip(c)) {
        result_.reason = *why;
        return;
      }
    }
    result_.legal = true;
  }

 private:
  // Every execution of a span must enter at its first slot and run straight
  // through to its end; records where each traversal starts.
  std::optional<std::string> find_traversals(uint32_t c) {
    ChipLog& log = logs_[c];
    const std::vector<uint64_t>& pcs = *log.pcs;
    log.traversal_start.assign(pcs.size(), -1);
    const uint64_t lo = plan_.spans.empty() ? 0 : plan_.spans.front().start;
    const uint64_t hi = plan_.spans.empty() ? 0 : plan_.spans.back().end;
    for (size_t i = 0; i < pcs.size(); ++i) {
      if (pcs[i] < lo || pcs[i] >= hi) continue;
      const Span* span = plan_.span_of(pcs[i]);
      if (span == nullptr) continue;
      const std::string region = fmt::format("the rewritten region {:#x}-{:#x}", span->start, span->end);
      if (pcs[i] != span->start) {
        if (i == 0) return fmt::format("chip {}: the window starts at {}, inside {}", c, describe_old(plan_, pcs[i]), region);
        return fmt::format("chip {}: {} jumps to {}, into the middle of {}; the moved code is only valid when that "
                           "region runs straight through", c, describe_old(plan_, pcs[i - 1]),
                           describe_old(plan_, pcs[i]), region);
      }
      const uint64_t length = (span->end - span->start) / 4;
      for (uint64_t k = 1; k < length; ++k) {
        if (i + k >= pcs.size()) {
          return fmt::format("chip {}: the window ends at {}, inside {}", c, describe_old(plan_, pcs[i + k - 1]), region);
        }
        if (pcs[i + k] != span->start + 4 * k) {
          return fmt::format("chip {}: {} branches to {}, out of the middle of {}; the moved code is only valid "
                             "when that region runs straight through", c, describe_old(plan_, pcs[i + k - 1]),
                             describe_old(plan_, pcs[i + k]), region);
        }
      }
      for (uint64_t k = 0; k < length; ++k) log.traversal_start[i + k] = static_cast<int64_t>(i);
      ++result_.span_traversals;
      i += length - 1;
    }
    return std::nullopt;
  }

  void execute() {
    const uint32_t chips = system_->chip_count();
    for (uint32_t c = 0; c < chips; ++c) {
      for (int s = 0; s < isa::kSemaphoreCount; ++s) {
        const uint32_t value = system_->chip(c).semaphore[static_cast<size_t>(s)];
        if (value != 0) tokens_[c][static_cast<size_t>(s)].push_back({-1, c, value});
      }
    }
    window::RecordedWindow window(*system_, replay::recorded_windows(input_));
    sim::Executor executor(*system_);
    executor.set_syscall_handler(window.syscall_handler());
    isa::Accesses accesses;
    for (;;) {
      bool active = false, progress = false;
      for (uint32_t c = 0; c < chips; ++c) {
        ChipLog& log = logs_[c];
        if (window.finished(c)) continue;
        active = true;
        sim::ChipState& chip = system_->chip(c);
        const uint64_t dyn = window.position(c);
        window.require_at_next_pc(c, "re-execution");
        const isa::DecodedInstruction* d = system_->fetch(chip.pc);
        if (d == nullptr || !d->valid()) throw Error(fmt::format("chip {}: no instruction at pc {:#x}", c, chip.pc));
        const Effect effect = d->row->effect;
        const bool in_span = log.traversal_start[dyn] >= 0;
        const bool is_dma = effect == Effect::kDma1d || effect == Effect::kDma2d;
        isa::compute_accesses(*d, std::span<const uint64_t, 32>(chip.x), accesses);
        uint64_t dma_dst_chip = c, remote_signal_chip = c;
        if (is_dma) {
          const isa::GlobalAddress dst = isa::split_global_address(chip.x[d->rs2]);
          if (dst.remote) dma_dst_chip = dst.chip;
        }
        if (effect == Effect::kSemSignalRemote) remote_signal_chip = static_cast<uint32_t>(chip.x[d->rs1]);
        const sim::StepResult step = with_error_context(fmt::format("re-executing chip {} instruction {}", c, dyn),
                                                        [&] { return window.step(executor, c, "re-execution"); });
        if (step == sim::StepResult::kBlocked) continue;
        if (step == sim::StepResult::kBreak) {
          throw Error(fmt::format("re-execution stopped at an ebreak on chip {} ({})", c, describe_old(plan_, chip.pc)));
        }
        progress = true;
        ++result_.instructions;
        if (in_span) begin_record(c, dyn, accesses);
        record_x(log, dyn, accesses);
        if (is_dma) {
          const int64_t id = static_cast<int64_t>(dmas_.size());
          DmaInfo info{c, (*log.pcs)[dyn], {}};
          for (const isa::MemoryRegion& region : accesses.memory()) info.regions.push_back(region);
          dmas_.push_back(std::move(info));
          tokens_[c][d->sem].push_back({id, c, 1});
          if (dma_dst_chip != c && dma_dst_chip < chips) tokens_[dma_dst_chip][d->sem].push_back({id, c, 1});
          outstanding_[c].push_back(id);
          if (in_span && (dma_dst_chip != c || touches_remote(accesses))) add_state(c, dyn, ResKind::kBarrier, false, c, 0);
        } else if (effect == Effect::kSemSignalLocal) {
          tokens_[c][d->sem].push_back({-1, c, static_cast<uint64_t>(static_cast<uint32_t>(d->imm))});
        } else if (effect == Effect::kSemSignalRemote) {
          if (remote_signal_chip < chips) {
            tokens_[remote_signal_chip][d->sem].push_back({-1, c, static_cast<uint64_t>(static_cast<uint32_t>(d->imm))});
          }
          if (in_span) add_state(c, dyn, ResKind::kBarrier, false, c, 0);
        } else if (effect == Effect::kSemWait) {
          consume(c, dyn, d->sem, static_cast<uint64_t>(static_cast<uint32_t>(d->imm)), in_span);
        } else if (in_span && (effect == Effect::kFenceAll || effect == Effect::kFenceDmaOnly)) {
          for (int64_t id : outstanding_[c]) attribute_dma(c, dyn, id);
        }
      }
      if (!active) break;
      if (!progress) throw Error("re-execution deadlocked: every remaining chip waits on a semaphore");
    }
  }

  static void record_x(ChipLog& log, uint64_t dyn, const isa::Accesses& accesses) {
    for (const isa::StateRef& ref : accesses.reads()) {
      if (ref.kind == isa::StateKind::kX && ref.index < 32) log.x_reads[ref.index].push_back(dyn);
    }
    for (const isa::StateRef& ref : accesses.writes()) {
      if (ref.kind == isa::StateKind::kX && ref.index < 32) log.x_writes[ref.index].push_back(dyn);
    }
  }

  static bool touches_remote(const isa::Accesses& accesses) {
    for (const isa::MemoryRegion& region : accesses.memory()) {
      if (region.remote) return true;
    }
    return false;
  }

  void begin_record(uint32_t c, uint64_t dyn, const isa::Accesses& accesses) {
    ChipLog& log = logs_[c];
    log.recorded.push_back(dyn);
    log.access_begin.push_back(static_cast<uint32_t>(log.accesses.size()));
    // Writes first, so a conflict report names the strongest hazard.
    for (const isa::StateRef& ref : accesses.writes()) add_state_ref(c, dyn, ref, true);
    for (const isa::StateRef& ref : accesses.reads()) add_state_ref(c, dyn, ref, false);
    for (const isa::MemoryRegion& region : accesses.memory()) add_region(c, dyn, region, -1);
  }

  void add_state_ref(uint32_t c, uint64_t dyn, const isa::StateRef& ref, bool write) {
    ResKind kind;
    switch (ref.kind) {
      case isa::StateKind::kX: kind = ResKind::kX; break;
      case isa::StateKind::kV: kind = ResKind::kV; break;
      case isa::StateKind::kCsr: kind = ResKind::kCsr; break;
      case isa::StateKind::kSemaphore: kind = ResKind::kSem; break;
      case isa::StateKind::kMxuWeights: kind = ResKind::kMxuWeights; break;
      case isa::StateKind::kMxuAccumulator: kind = ResKind::kMxuAcc; break;
      default: return;  // pc: handled by the static fix-ups
    }
    add_state(c, dyn, kind, write, ref.remote ? ref.chip : c, ref.index);
  }

  void add_state(uint32_t c, uint64_t dyn, ResKind kind, bool write, uint32_t owner, uint64_t index) {
    ChipLog& log = logs_[c];
    const auto id = static_cast<uint32_t>(log.accesses.size());
    log.accesses.push_back({dyn, kind, write, owner, index, 0, -1});
    log.states[state_key(kind, owner, index)].push_back({dyn, id});
    if (write) log.state_writes[state_key(kind, owner, index)].push_back({dyn, id});
  }

  void add_range(uint32_t c, uint64_t dyn, bool write, uint32_t owner, uint64_t start, uint64_t end, int64_t via) {
    if (end <= start) return;
    ChipLog& log = logs_[c];
    const auto id = static_cast<uint32_t>(log.accesses.size());
    log.accesses.push_back({dyn, ResKind::kMem, write, owner, start, end, via});
    for (uint64_t page = start >> kPageShift; page <= (end - 1) >> kPageShift; ++page) {
      log.pages[page_key(owner, page)].push_back({dyn, id});
      if (write) log.page_writes[page_key(owner, page)].push_back({dyn, id});
    }
  }

  void add_region(uint32_t c, uint64_t dyn, const isa::MemoryRegion& region, int64_t via) {
    const uint32_t owner = region.remote ? region.chip : c;
    if (region.rows <= 1 || region.row_stride_bytes == region.row_bytes || region.rows > kMaxExpandedRows) {
      const uint64_t last = region.row_address(region.rows == 0 ? 0 : region.rows - 1) + region.row_bytes;
      add_range(c, dyn, region.is_write, owner, region.local_address, std::max(last, region.local_address), via);
      return;
    }
    for (uint64_t r = 0; r < region.rows; ++r) {
      add_range(c, dyn, region.is_write, owner, region.row_address(r), region.row_address(r) + region.row_bytes, via);
    }
  }

  // A DMA's source is read and its destination written until the wait (or
  // fence) that completes it, so that instruction carries them too.
  void attribute_dma(uint32_t c, uint64_t dyn, int64_t id) {
    for (const isa::MemoryRegion& region : dmas_[static_cast<size_t>(id)].regions) add_region(c, dyn, region, id);
  }

  void consume(uint32_t c, uint64_t dyn, uint8_t sem, uint64_t units, bool in_span) {
    std::deque<Token>& queue = tokens_[c][sem];
    while (units > 0 && !queue.empty()) {
      Token& token = queue.front();
      const uint64_t take = std::min(units, token.units);
      units -= take;
      token.units -= take;
      if (in_span) {
        if (token.dma >= 0) attribute_dma(c, dyn, token.dma);
        if (token.from != c) add_state(c, dyn, ResKind::kBarrier, true, c, 0);
      }
      if (token.dma >= 0 && dmas_[static_cast<size_t>(token.dma)].chip == c) {
        std::vector<int64_t>& out = outstanding_[c];
        out.erase(std::remove(out.begin(), out.end(), token.dma), out.end());
      }
      if (token.units == 0) queue.pop_front();
    }
  }

  std::optional<std::string> check_chip(uint32_t c) {
    ChipLog& log = logs_[c];
    for (size_t r = 0; r < log.recorded.size(); ++r) {
      const uint64_t dyn = log.recorded[r];
      const uint64_t pc = (*log.pcs)[dyn];
      if (!plan_.moved[plan_.slot(pc)]) continue;
      const uint32_t end = r + 1 < log.recorded.size() ? log.access_begin[r + 1] : static_cast<uint32_t>(log.accesses.size());
      if (std::optional<std::string> why = check_moved(c, dyn, log.access_begin[r], end)) return why;
    }
    return std::nullopt;
  }

  // Instructions that came before `dyn` and now come after it are those
  // between its new successor's original position and it; each of their
  // accesses to the same state that involves a write is a broken pair.
  std::optional<std::string> check_moved(uint32_t c, uint64_t dyn, uint32_t begin, uint32_t end) {
    ChipLog& log = logs_[c];
    const std::vector<uint64_t>& pcs = *log.pcs;
    const uint64_t pc = pcs[dyn];
    const Span* found_span = plan_.span_of(pc);
    if (found_span == nullptr) return std::nullopt;  // moves that cancel out leave it in place
    const Span& span = *found_span;
    const uint64_t new_pc = plan_.new_pc(pc);
    const auto first = static_cast<uint64_t>(log.traversal_start[dyn]);
    uint64_t lo = dyn;
    for (uint64_t slot_pc = new_pc + 4; slot_pc < span.end; slot_pc += 4) {
      const uint64_t old = plan_.old_pc_at[plan_.slot(slot_pc)];
      if (!plan_.moved[plan_.slot(old)]) {
        lo = first + (old - span.start) / 4;
        break;
      }
    }
    if (lo >= dyn) return std::nullopt;
    auto examine = [&](const Access& mine, const std::vector<Ref>& refs) -> std::optional<std::string> {
      auto it = std::lower_bound(refs.begin(), refs.end(), lo, [](const Ref& ref, uint64_t v) { return ref.dyn < v; });
      for (; it != refs.end() && it->dyn < dyn; ++it) {
        const Access& other = log.accesses[it->access];
        if (!mine.write && !other.write) continue;
        if (mine.kind == ResKind::kMem && (other.end <= mine.start || mine.end <= other.start)) continue;
        ++result_.pairs_examined;
        if (plan_.new_pc(pcs[other.dyn]) < new_pc) continue;  // still before it (moved along)
        if (mine.kind == ResKind::kX && renames_away(c, dyn, lo, mine, other)) continue;
        return describe_violation(c, pc, pcs[other.dyn], mine, other);
      }
      return std::nullopt;
    };
    for (uint32_t a = begin; a < end; ++a) {
      const Access& mine = log.accesses[a];
      if (mine.kind != ResKind::kMem) {
        const auto& index = mine.write ? log.states : log.state_writes;
        auto found = index.find(state_key(mine.kind, mine.owner, mine.start));
        if (found != index.end()) {
          if (std::optional<std::string> why = examine(mine, found->second)) return why;
        }
        continue;
      }
      for (uint64_t page = mine.start >> kPageShift; page <= (mine.end - 1) >> kPageShift; ++page) {
        const auto& index = mine.write ? log.pages : log.page_writes;
        auto found = index.find(page_key(mine.owner, page));
        if (found == index.end()) continue;
        if (std::optional<std::string> why = examine(mine, found->second)) return why;
      }
    }
    return std::nullopt;
  }

  // Register renaming: a register pair the new order reverses is no
  // dependency when each side uses its own value of the register, as if
  // each had been given a register of its own; consecutive address
  // computations that reuse the same scratch registers are the common case.
  // `mine` is an access of the moved instruction at `dyn`, `other` one of a
  // crossed instruction in [lo, dyn) that now comes after it; both on x r.
  //  - RAW (moved read, crossed write): the moved read sees a write that
  //    moved along with it and came after the crossed write.
  //  - WAR (moved write, crossed read): the crossed read sees a crossed
  //    write, which still comes between the two.
  //  - WAW (moved write, crossed write): the moved value is read only by
  //    instructions that moved along (still before the crossed code), and
  //    the window writes the register again afterwards, so no later reader
  //    and not the end state can tell.
  bool renames_away(uint32_t c, uint64_t dyn, uint64_t lo, const Access& mine, const Access& other) const {
    const ChipLog& log = logs_[c];
    const std::vector<uint64_t>& pcs = *log.pcs;
    const uint64_t r = mine.start;
    if (r == 0 || r >= 32) return false;
    const std::vector<uint64_t>& writes = log.x_writes[r];
    const std::vector<uint64_t>& reads = log.x_reads[r];
    const uint64_t new_pc = plan_.new_pc(pcs[dyn]);
    const uint64_t crossed_start = plan_.new_pc(pcs[lo]);
    // The last write before `at` (exclusive), or none.
    auto last_write_before = [&](uint64_t at) -> std::optional<uint64_t> {
      auto it = std::lower_bound(writes.begin(), writes.end(), at);
      if (it == writes.begin()) return std::nullopt;
      return *std::prev(it);
    };
    auto moved_along = [&](uint64_t d) {
      return d >= lo && plan_.moved[plan_.slot(pcs[d])] && plan_.new_pc(pcs[d]) < crossed_start;
    };
    if (!mine.write) {
      const std::optional<uint64_t> w = last_write_before(dyn);
      return w && *w > other.dyn && moved_along(*w) && plan_.new_pc(pcs[*w]) < new_pc;
    }
    if (!other.write) {
      const std::optional<uint64_t> w = last_write_before(other.dyn);
      return w && *w >= lo && *w != dyn && plan_.new_pc(pcs[*w]) > new_pc;
    }
    auto next = std::upper_bound(writes.begin(), writes.end(), dyn);
    if (next == writes.end()) return false;  // the end state would keep the crossed value
    // Reads of the moved value: after it, up to and including the next
    // write (an instruction reading and writing r reads first).
    for (auto it = std::upper_bound(reads.begin(), reads.end(), dyn); it != reads.end() && *it <= *next; ++it) {
      if (!moved_along(*it) || plan_.new_pc(pcs[*it]) < new_pc) return false;
    }
    return true;
  }

  std::string describe_state(uint32_t c, const Access& a, const Access& b) const {
    const std::string chip = a.owner != c ? fmt::format(" of chip {}", a.owner) : std::string();
    switch (a.kind) {
      case ResKind::kX: return fmt::format("x{}", a.start);
      case ResKind::kV: return fmt::format("v{}", a.start);
      case ResKind::kCsr: return fmt::format("csr {:#x}", a.start);
      case ResKind::kSem: return fmt::format("semaphore {}{}", a.start, chip);
      case ResKind::kMxuWeights: return fmt::format("matrix unit {} weights", a.start);
      case ResKind::kMxuAcc: return fmt::format("matrix unit {} accumulator", a.start);
      case ResKind::kBarrier: return "cross-chip order";
      case ResKind::kMem: {
        const uint64_t lo = std::max(a.start, b.start), hi = std::min(a.end, b.end);
        return fmt::format("{} {:#x}-{:#x}{}", isa::memory_space_name(isa::memory_space_of(lo)), lo, hi, chip);
      }
    }
    return "?";
  }

  std::string describe_violation(uint32_t c, uint64_t moved_pc, uint64_t other_pc, const Access& mine,
                                 const Access& other) const {
    const std::string head = fmt::format("chip {}: moving {} above {}", c, describe_old(plan_, moved_pc),
                                         describe_old(plan_, other_pc));
    const std::string them = mnemonic_at(plan_, other_pc);
    if (mine.kind == ResKind::kBarrier) {
      const std::string waiter = mine.write ? "moved " + mnemonic_at(plan_, moved_pc) : them;
      const std::string toucher = mine.write ? them : "moved " + mnemonic_at(plan_, moved_pc);
      return fmt::format("{} breaks the cross-chip order: the {} waits for another chip's signal, and the {} "
                         "touches another chip's memory or semaphores", head, waiter, toucher);
    }
    const std::string what = describe_state(c, mine, other);
    if (other.via_dma >= 0) {
      // The crossed instruction is the wait (or fence) that completes a DMA
      // still in flight at the new position.
      const DmaInfo& dma = dmas_[static_cast<size_t>(other.via_dma)];
      const std::string issued = fmt::format("the DMA issued by chip {} at {}", dma.chip, describe_old(plan_, dma.pc));
      if (other.write && !mine.write) {
        return fmt::format("{} breaks RAW on {}: it would read it before {} has written it (the {} waits for that)",
                           head, what, issued, them);
      }
      return fmt::format("{} breaks {} on {}: {} may still be {} it until the {}", head, other.write ? "WAW" : "WAR",
                         what, issued, other.write ? "writing" : "reading", them);
    }
    std::string text;
    if (other.write && !mine.write) {
      text = fmt::format("{} breaks RAW on {}: it would read it before the {} writes it", head, what, them);
    } else if (!other.write && mine.write) {
      text = fmt::format("{} breaks WAR on {}: the {} still reads the old contents", head, what, them);
    } else {
      text = fmt::format("{} breaks WAW on {}: the {} would overwrite it afterwards", head, what, them);
    }
    return text;
  }

  const replay::ReplayInput& input_;
  const RewritePlan& plan_;
  LegalityResult& result_;
  sim::System* system_ = nullptr;
  std::vector<ChipLog> logs_;
  std::vector<std::array<std::deque<Token>, isa::kSemaphoreCount>> tokens_;
  std::vector<std::vector<int64_t>> outstanding_;
  std::vector<DmaInfo> dmas_;
};

}  // namespace

LegalityResult check_legality(const replay::ReplayInput& input, const RewritePlan& plan) {
  if (!plan.valid) throw Error("check_legality needs a valid plan: " + plan.problem);
  LegalityResult result;
  Checker checker(input, plan, result);
  checker.run();
  return result;
}

}  // namespace snr::rewrite
