#include "analyze/suggestions.h"

#include "analyze/saving_model.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace snr::analyze {
namespace {

constexpr uint32_t kNone = RunIndex::kNone;

// What an ISSUE group may not be moved across, on one chip's stream.
class MoveRules {
 public:
  MoveRules(const RunIndex& index, uint32_t chip) : index_(index), stream_(index.chip_stream(chip)) {
    // Semaphores each WAIT consumed DMA completions of; a WAIT that
    // consumed none waits for a signal (a cross-chip handshake).
    for (const auto& d : index.data().dmas) {
      if (!d.waited || d.wait_chip != chip) continue;
      const uint32_t w = index.instruction_of_step(d.wait_step);
      if (w != kNone) wait_semaphores_[w].insert(d.semaphore);
    }
    op_start_.resize(stream_.size());
    for (uint32_t p = 0; p < stream_.size(); ++p) {
      const bool same = p > 0 && index.instruction(stream_[p]).op == index.instruction(stream_[p - 1]).op;
      op_start_[p] = same ? op_start_[p - 1] : p;
    }
  }

  [[nodiscard]] std::span<const uint32_t> stream() const { return stream_; }
  [[nodiscard]] uint32_t op_start(uint32_t position) const { return op_start_[position]; }

  // The earliest position the ISSUE at `issue_pos` (with its slice) can be
  // placed before, scanning back no further than `floor`: stops at a WAIT
  // on `semaphore` or one that consumed no DMA, any other semaphore
  // instruction, and any instruction that writes a register the slice
  // reads from outside itself. Registers the slice writes do not stop it
  // (the rewriter renames them, docs/rewrite.md), except where a crossed
  // instruction reads such a register's value from before the target:
  // those positions are added to `forbidden`.
  [[nodiscard]] uint32_t legal_target(uint32_t issue_pos, uint32_t floor, const std::vector<uint32_t>& slice,
                                      uint32_t semaphore, std::set<uint32_t>& forbidden) const {
    std::set<uint32_t> members(slice.begin(), slice.end());
    uint64_t moving_writes = index_.registers_written(stream_[issue_pos]);
    uint64_t moving_reads = index_.registers_read(stream_[issue_pos]);
    for (uint32_t i : slice) {
      moving_writes |= index_.registers_written(i);
      moving_reads |= index_.registers_read(i);
    }
    uint32_t p = issue_pos;
    // Crossed readers of a register the slice writes need the target at or
    // above their producer's position (the producer crossed too).
    uint32_t producer_floor = UINT32_MAX;
    while (p > floor) {
      if (p <= issue_pos && p > producer_floor) forbidden.insert(p);
      const uint32_t i = stream_[p - 1];
      if (members.count(i) != 0) {
        --p;
        continue;
      }
      if (blocks(i, semaphore) || register_conflict(p - 1, moving_reads, moving_writes, producer_floor)) break;
      --p;
    }
    if (p > producer_floor) forbidden.insert(p);
    return p;
  }

  // Whether moving instructions that read `reads` and write `writes`
  // across the instruction at `position` breaks a register dependency no
  // renaming removes: it writes a register they read from outside (RAW),
  // or it reads one they write and that value is older than anything in
  // the window (no producer to stay below). A register they write that it
  // reads lowers `producer_floor` to its producer's position.
  [[nodiscard]] bool register_conflict(uint32_t position, uint64_t reads, uint64_t writes,
                                       uint32_t& producer_floor) const {
    const uint32_t i = stream_[position];
    if ((index_.registers_written(i) & reads & ~writes) != 0) return true;
    uint64_t war = index_.registers_read(i) & writes;
    if (war == 0) return false;
    for (uint32_t e : index_.edges_into(i)) {
      const rundb::DependencyRecord& edge = index_.data().dependencies[e];
      const uint64_t bit = edge.kind == "x" ? edge.first : edge.kind == "v" ? 32 + edge.first : 64;
      if (bit >= 64 || (war & (uint64_t{1} << bit)) == 0) continue;
      const uint32_t producer = index_.instruction_of_step(edge.producer_step);
      if (producer == kNone) return true;
      // Above its producer the moved write would come between the two.
      producer_floor = std::min(producer_floor, index_.position_in_chip(producer));
      war &= ~(uint64_t{1} << bit);
    }
    return war != 0;
  }

  // The plain rule (any shared register with a write on one side), for
  // the chain interleaving's note on registers.
  [[nodiscard]] bool shares_register(uint32_t i, uint64_t reads, uint64_t writes) const {
    return ((index_.registers_read(i) | index_.registers_written(i)) & writes) != 0 ||
           (index_.registers_written(i) & reads) != 0;
  }

 private:
  [[nodiscard]] bool blocks(uint32_t i, uint32_t semaphore) const {
    const InstructionClass cls = index_.class_of(i);
    if (cls == InstructionClass::kSemaphore) return true;
    if (cls == InstructionClass::kWait) {
      auto it = wait_semaphores_.find(i);
      if (it == wait_semaphores_.end() || it->second.count(semaphore) != 0) return true;
    }
    return false;
  }

  const RunIndex& index_;
  std::span<const uint32_t> stream_;
  std::unordered_map<uint32_t, std::set<uint32_t>> wait_semaphores_;
  std::vector<uint32_t> op_start_;
};

// A planned move of one DMA.
struct Plan {
  uint32_t dma = 0;         // index into dmas
  uint32_t target = 0;      // stream position to move before
  uint32_t fallback = kNone;
  bool cross_op = false;
  bool needs_reallocation = false;
  uint64_t saving_cycles = 0;
  uint64_t push_limit_cycles = 0;
};

std::string op_label(const std::string& op) { return op.empty() ? std::string("code outside any op") : op; }

// Said when re-timing the stream takes back a quarter or more of the
// hidden stall, so a reader of the text is not left with the larger figure.
std::string taken_back_note(const Suggestion& s) {
  if (4 * s.predicted_saving_cycles >= 3 * s.hidden_stall_cycles) return {};
  return fmt::format(
      " (re-timed, the window saves about {} of the {} stall cycles hidden: the moved DMAs still queue on their "
      "link, or the program stalls on the next WAIT instead)",
      s.predicted_saving_cycles, s.hidden_stall_cycles);
}

// Pages a DMA needs, rounded up.
uint64_t pages_for(uint64_t bytes, uint64_t page_bytes) { return (bytes + page_bytes - 1) / page_bytes; }

class Suggester {
 public:
  Suggester(const SuggestionInputs& in, const AnalyzeOptions& options)
      : in_(in),
        options_(options),
        rules_(in.index, options.suggestion_chip),
        model_(in.index, options.suggestion_chip, in.dma_max_outstanding) {}

  std::vector<Suggestion> run() {
    std::vector<Suggestion> early = issue_earlier();
    std::erase_if(early, [](const Suggestion& s) { return s.predicted_saving_cycles == 0; });
    std::stable_sort(early.begin(), early.end(), [](const Suggestion& a, const Suggestion& b) {
      return a.predicted_saving_cycles > b.predicted_saving_cycles;
    });
    if (early.size() > options_.top_suggestions) early.resize(options_.top_suggestions);
    std::vector<Suggestion> out = chain_heads();
    std::erase_if(out, [](const Suggestion& s) { return s.predicted_saving_cycles == 0; });
    for (auto& s : early) out.push_back(std::move(s));
    std::stable_sort(out.begin(), out.end(), [](const Suggestion& a, const Suggestion& b) {
      return a.predicted_saving_cycles > b.predicted_saving_cycles;
    });
    return out;
  }

 private:
  [[nodiscard]] uint64_t cycle_at(uint32_t position) const {
    return in_.index.instruction(rules_.stream()[position]).issue_cycle;
  }
  [[nodiscard]] uint64_t pc_at(uint32_t position) const { return in_.index.instruction(rules_.stream()[position]).pc; }

  // Whether the DMA's destination can take the data from `position` on.
  // Returns false when VMEM has no room; sets needs_reallocation when
  // only another region has room. Non-VMEM destinations are not tracked
  // page by page and count as available.
  bool vmem_room(uint32_t k, uint32_t position, bool& needs_reallocation) const {
    const rundb::DmaRecord& d = in_.index.data().dmas[k];
    needs_reallocation = false;
    uint64_t first = 0, last = 0;
    if (!dma_destination_pages(d, in_.vmem.geometry(), first, last)) return d.dst_space != "vmem";
    const uint64_t begin = cycle_at(position);
    if (in_.vmem.pages_untouched(d.dst_chip, first, last, begin, d.transfer_start_cycle)) return true;
    needs_reallocation = true;
    return in_.vmem.largest_unused_run(d.dst_chip, begin, d.transfer_end_cycle) >=
           pages_for(d.bytes, in_.vmem.geometry().page_bytes);
  }

  std::optional<Plan> plan(uint32_t k) {
    const DmaStall& s = in_.dmas[k];
    const Backtail& b = in_.dependencies.backtails[k];
    if (s.chip != options_.suggestion_chip || s.stall_cycles() == 0 || b.blocked || b.issue == kNone) return {};
    const uint32_t issue_pos = in_.index.position_in_chip(b.issue);
    std::set<uint32_t> forbidden;
    const uint32_t legal =
        rules_.legal_target(issue_pos, b.earliest_position, b.slice, in_.index.data().dmas[k].semaphore, forbidden);
    if (legal >= issue_pos) return {};
    Plan p;
    p.dma = k;
    p.push_limit_cycles = s.issue_cycle - s.earliest_issue_cycle;
    // Move no further than hiding the stall needs: the latest position
    // issuing at least `stall` cycles earlier, but not before `legal`.
    const uint64_t want = s.issue_cycle > s.stall_cycles() ? s.issue_cycle - s.stall_cycles() : 0;
    uint32_t target = issue_pos;
    while (target > legal && cycle_at(target) > want) --target;
    const uint32_t op_start = rules_.op_start(issue_pos);
    if (target > op_start && legal <= op_start && cycle_at(op_start) <= want) target = op_start;
    // Slice instructions at the target move too: the group goes before
    // the first instruction that stays.
    auto in_slice = [&](uint32_t position) {
      return std::binary_search(b.slice.begin(), b.slice.end(), rules_.stream()[position]);
    };
    while (target < issue_pos && (in_slice(target) || forbidden.count(target) != 0)) ++target;
    if (target >= issue_pos) return {};
    p.target = target;
    p.cross_op = target < op_start;
    bool realloc = false;
    if (!vmem_room(k, target, realloc)) return {};
    p.needs_reallocation = realloc;
    if (p.cross_op) {
      bool fallback_realloc = false;
      if (vmem_room(k, op_start, fallback_realloc) && !fallback_realloc && op_start < issue_pos &&
          forbidden.count(op_start) == 0) {
        p.fallback = op_start;
      }
    }
    p.saving_cycles = std::min({s.stall_cycles(), s.issue_cycle - cycle_at(target), p.push_limit_cycles});
    // Algorithm 2 asks for the whole stall; a move hiding at least the
    // configured share of it is still worth verifying.
    if (p.saving_cycles == 0 ||
        static_cast<double>(p.saving_cycles) < options_.min_saving_fraction * static_cast<double>(s.stall_cycles())) {
      return {};
    }
    return p;
  }

  // Slice pcs that move with the ISSUE when it goes before `target`
  // (those already before the target stay), plus the ISSUE.
  std::vector<uint64_t> moved_pcs(uint32_t k, uint32_t target, std::set<uint64_t>& already) const {
    const Backtail& b = in_.dependencies.backtails[k];
    std::vector<uint64_t> pcs;
    for (uint32_t i : b.slice) {
      if (in_.index.position_in_chip(i) >= target && already.insert(in_.index.instruction(i).pc).second) {
        pcs.push_back(in_.index.instruction(i).pc);
      }
    }
    if (already.insert(in_.dmas[k].issue_pc).second) pcs.push_back(in_.dmas[k].issue_pc);
    std::sort(pcs.begin(), pcs.end());
    return pcs;
  }

  // The same move as stream positions, for the saving model.
  PositionMove moved_positions(uint32_t k, uint32_t target, std::set<uint32_t>& already) const {
    const Backtail& b = in_.dependencies.backtails[k];
    PositionMove move;
    move.before = target;
    for (uint32_t i : b.slice) {
      const uint32_t pos = in_.index.position_in_chip(i);
      if (pos >= target && already.insert(pos).second) move.positions.push_back(pos);
    }
    const uint32_t issue = in_.index.position_in_chip(b.issue);
    if (already.insert(issue).second) move.positions.push_back(issue);
    std::sort(move.positions.begin(), move.positions.end());
    return move;
  }

  [[nodiscard]] uint64_t predict(const std::vector<PositionMove>& moves) const {
    return static_cast<uint64_t>(std::max<int64_t>(model_.predicted_saving_cycles(moves), 0));
  }

  std::vector<Suggestion> issue_earlier() {
    std::vector<Plan> plans;
    for (uint32_t k = 0; k < in_.dmas.size(); ++k) {
      if (auto p = plan(k)) plans.push_back(*p);
    }
    // One suggestion per op and pattern: where the moves go (to the op's
    // start, elsewhere inside the op, or across ops) and the kind of room.
    std::map<std::tuple<std::string, int, bool>, std::vector<Plan>> groups;
    for (const Plan& p : plans) {
      const uint32_t op_start = rules_.op_start(in_.index.position_in_chip(in_.dependencies.backtails[p.dma].issue));
      const int where = p.cross_op ? 2 : p.target == op_start ? 0 : 1;
      groups[{in_.dmas[p.dma].op, where, p.needs_reallocation}].push_back(p);
    }
    std::vector<Suggestion> out;
    for (auto& [key, members] : groups) {
      const auto& [op, where_kind, realloc] = key;
      const bool cross_op = where_kind == 2;
      Suggestion s;
      s.kind = Suggestion::Kind::kIssueEarlier;
      s.chip = options_.suggestion_chip;
      s.op = op;
      s.cross_op = cross_op;
      s.memory_available = true;
      s.needs_reallocation = realloc;
      s.push_limit_cycles = UINT64_MAX;
      std::set<uint64_t> moved, moved_fallback;
      std::set<uint32_t> moved_at;
      std::vector<PositionMove> position_moves;
      bool all_fallback = true;
      bool free_of_op = true;  // no member's address depends on anything in the op
      std::set<std::string> links;
      for (const Plan& p : members) {
        const DmaStall& d = in_.dmas[p.dma];
        const Backtail& b = in_.dependencies.backtails[p.dma];
        free_of_op = free_of_op && b.earliest_position <= rules_.op_start(in_.index.position_in_chip(b.issue));
        s.dma_ids.push_back(d.dma_id);
        s.stall_cycles += d.stall_cycles();
        s.dma_bytes += d.bytes;
        s.push_limit_cycles = std::min(s.push_limit_cycles, p.push_limit_cycles);
        s.hidden_stall_cycles += p.saving_cycles;
        links.insert(d.link);
        position_moves.push_back(moved_positions(p.dma, p.target, moved_at));
        if (!realloc) s.moves.push_back({moved_pcs(p.dma, p.target, moved), pc_at(p.target)});
        all_fallback = all_fallback && p.fallback != kNone;
      }
      s.predicted_saving_cycles = predict(position_moves);
      if (all_fallback && !realloc) {
        for (const Plan& p : members) s.fallback_moves.push_back({moved_pcs(p.dma, p.fallback, moved_fallback), pc_at(p.fallback)});
      }
      const uint64_t n = members.size();
      const uint32_t first_target = members.front().target;
      const std::string where =
          where_kind == 2 ? fmt::format("earlier, from op {} on (crossing the op boundary)",
                                        op_label(in_.index.data().op_names[in_.index.instruction(rules_.stream()[first_target]).op]))
          : where_kind == 0 ? std::string("before the op starts")
                            : std::string("earlier inside the op");
      std::string link_text;
      for (const std::string& l : links) link_text += (link_text.empty() ? "" : ", ") + l;
      s.text = fmt::format(
          "issue the {} DMA{} of {} ({} B over {}) {}: {} wait{} {} cycles and {} relaxed dependencies allow {} cycles "
          "earlier{}{}; suggested on chip {}'s stream, assuming every chip runs the same text",
          n, n == 1 ? "" : "s", op_label(op), s.dma_bytes, link_text, where, n == 1 ? "it" : "they", n == 1 ? "s" : "",
          s.stall_cycles, n == 1 ? "its" : "their", s.push_limit_cycles,
          free_of_op ? fmt::format("; {} address{} depend{} on nothing in the op", n == 1 ? "its" : "their",
                                   n == 1 ? "" : "es", n == 1 ? "s" : "")
                     : std::string(),
          realloc ? "; VMEM has a large enough unused region but not at the current destination, so the buffer "
                    "needs reallocation"
                  : "",
          s.chip);
      s.text += taken_back_note(s);
      out.push_back(std::move(s));
    }
    return out;
  }

  std::vector<Suggestion> chain_heads() {
    std::map<std::string, std::vector<uint32_t>> by_op;
    for (uint32_t c = 0; c < in_.dependencies.chains.size(); ++c) {
      const DmaChain& chain = in_.dependencies.chains[c];
      if (chain.chip == options_.suggestion_chip) by_op[chain.op].push_back(c);
    }
    std::unordered_map<uint64_t, uint32_t> dma_by_id;
    for (uint32_t k = 0; k < in_.dmas.size(); ++k) dma_by_id.emplace(in_.dmas[k].dma_id, k);
    // How many DMAs each WAIT position of the chip consumed.
    std::unordered_map<uint32_t, uint32_t> waits_per_position;
    for (const auto& d : in_.index.data().dmas) {
      if (!d.waited || d.wait_chip != options_.suggestion_chip) continue;
      const uint32_t w = in_.index.instruction_of_step(d.wait_step);
      if (w != kNone) ++waits_per_position[in_.index.position_in_chip(w)];
    }
    std::vector<Suggestion> out;
    for (auto& [op, ids] : by_op) {
      if (ids.size() < 2) continue;
      auto wait_position = [&](uint64_t id) -> uint32_t {
        const auto& d = in_.index.data().dmas[dma_by_id.at(id)];
        if (!d.waited || d.wait_chip != options_.suggestion_chip) return kNone;
        const uint32_t w = in_.index.instruction_of_step(d.wait_step);
        return w == kNone ? kNone : in_.index.position_in_chip(w);
      };
      auto position_of_issue = [&](uint64_t id) {
        return in_.index.position_in_chip(in_.dependencies.backtails[dma_by_id.at(id)].issue);
      };
      // Each chain's levels that can be interleaved: the prefix whose DMAs
      // each have a WAIT of their own on this chip (a DMA waited on another
      // chip, or sharing its WAIT, ends the prefix).
      std::vector<std::vector<uint64_t>> chains;
      for (uint32_t c : ids) {
        std::vector<uint64_t> prefix;
        for (uint64_t id : in_.dependencies.chains[c].dma_ids) {
          const uint32_t w = wait_position(id);
          if (w == kNone || waits_per_position.at(w) != 1) break;
          prefix.push_back(id);
        }
        if (!prefix.empty()) chains.push_back(std::move(prefix));
      }
      if (chains.size() < 2) continue;
      // The longest chain (earliest head on ties) stays; the others join it level by level.
      std::stable_sort(chains.begin(), chains.end(),
                       [](const auto& a, const auto& b) { return a.size() > b.size(); });
      const std::vector<uint64_t>& anchor = chains[0];
      bool feasible = true;
      for (size_t i = 1; feasible && i < chains.size(); ++i) {
        const Backtail& head = in_.dependencies.backtails[dma_by_id.at(chains[i][0])];
        feasible = head.earliest_position <= wait_position(anchor[0]);
      }
      if (!feasible) continue;
      Suggestion s;
      s.kind = Suggestion::Kind::kParallelChainHeads;
      s.chip = options_.suggestion_chip;
      s.op = op;
      s.memory_available = true;
      uint64_t max_base = 0, sum_base = 0;
      for (const auto& chain : chains) {
        uint64_t base = 0;
        for (uint64_t id : chain) {
          const DmaStall& d = in_.dmas[dma_by_id.at(id)];
          base += d.base_stall_cycles;
          s.stall_cycles += d.stall_cycles();
          s.dma_ids.push_back(id);
          s.dma_bytes += d.bytes;
        }
        sum_base += base;
        max_base = std::max(max_base, base);
      }
      s.hidden_stall_cycles = sum_base - max_base;
      std::vector<PositionMove> position_moves;
      std::set<uint64_t> moved;          // pcs already placed by an earlier move
      std::set<uint32_t> moving;         // positions of everything this suggestion moves
      // The anchor's instructions never move, not even slice instructions
      // another chain shares with it (they stay where the anchor needs them).
      std::set<uint32_t> anchor_positions;
      for (uint64_t id : anchor) {
        anchor_positions.insert(position_of_issue(id));
        anchor_positions.insert(wait_position(id));
        for (uint32_t m : in_.dependencies.backtails[dma_by_id.at(id)].slice) {
          anchor_positions.insert(in_.index.position_in_chip(m));
        }
      }
      bool register_risk = false;
      const std::span<const uint32_t> stream = rules_.stream();
      // Whether moving `group` to before position `target` crosses an
      // instruction that stays and shares a register with it (one side writing).
      auto crosses_register = [&](const std::vector<uint32_t>& group, uint32_t target) {
        const std::set<uint32_t> own(group.begin(), group.end());
        for (uint32_t pos : group) {
          const uint64_t reads = in_.index.registers_read(stream[pos]);
          const uint64_t writes = in_.index.registers_written(stream[pos]);
          for (uint32_t p = target; p < pos; ++p) {
            if (own.count(p) == 0 && moving.count(p) == 0 && rules_.shares_register(stream[p], reads, writes)) {
              return true;
            }
          }
        }
        return false;
      };
      for (size_t level = 0; level < anchor.size(); ++level) {
        const uint32_t anchor_wait = wait_position(anchor[level]);
        // Where the level's other ISSUEs may go: before the anchor's own
        // address computation for this level, or right before its WAIT.
        const uint32_t lower = level == 0 ? 0 : wait_position(anchor[level - 1]) + 1;
        uint32_t anchor_start = position_of_issue(anchor[level]);
        for (uint32_t m : in_.dependencies.backtails[dma_by_id.at(anchor[level])].slice) {
          const uint32_t pos = in_.index.position_in_chip(m);
          if (pos >= lower) anchor_start = std::min(anchor_start, pos);
        }
        std::vector<uint32_t> chosen;
        uint32_t chosen_target = anchor_wait;
        for (const uint32_t target : {anchor_start, anchor_wait}) {
          if (level == 0 && target == anchor_start) {
            bool reachable = true;
            for (size_t i = 1; i < chains.size(); ++i) {
              reachable = reachable && in_.dependencies.backtails[dma_by_id.at(chains[i][0])].earliest_position <= target;
            }
            if (!reachable) continue;
          }
          std::vector<uint32_t> group;
          for (size_t i = 1; i < chains.size(); ++i) {
            if (level >= chains[i].size()) continue;
            for (uint32_t m : in_.dependencies.backtails[dma_by_id.at(chains[i][level])].slice) {
              const uint32_t pos = in_.index.position_in_chip(m);
              if (pos >= target && moving.count(pos) == 0 && anchor_positions.count(pos) == 0) group.push_back(pos);
            }
            group.push_back(position_of_issue(chains[i][level]));
          }
          std::sort(group.begin(), group.end());
          group.erase(std::unique(group.begin(), group.end()), group.end());
          const bool clean = !crosses_register(group, target);
          if (chosen.empty() || clean) {
            chosen = std::move(group);
            chosen_target = target;
          }
          if (clean) break;
        }
        if (crosses_register(chosen, chosen_target)) register_risk = true;
        std::vector<uint32_t> waits;
        for (size_t i = 1; i < chains.size(); ++i) {
          if (level < chains[i].size()) waits.push_back(wait_position(chains[i][level]));
        }
        std::sort(waits.begin(), waits.end());
        // The WAITs go right after the anchor's (before the first instruction
        // after it that stays), so the anchor's WAIT takes the level's one
        // stall; when that instruction does not precede them, right before it.
        uint32_t waits_before = anchor_wait;
        if (!waits.empty()) {
          uint32_t after = anchor_wait + 1;
          while (after < stream.size() && (moving.count(after) != 0 || std::binary_search(waits.begin(), waits.end(), after) ||
                                           std::find(chosen.begin(), chosen.end(), after) != chosen.end())) {
            ++after;
          }
          if (after < waits.front()) waits_before = after;
        }
        for (const auto& [positions, before] : {std::pair{chosen, chosen_target}, std::pair{waits, waits_before}}) {
          std::vector<uint64_t> pcs;
          PositionMove position_move{{}, before};
          for (uint32_t pos : positions) {
            moving.insert(pos);
            if (moved.insert(pc_at(pos)).second) {
              pcs.push_back(pc_at(pos));
              position_move.positions.push_back(pos);
            }
          }
          if (!position_move.positions.empty()) position_moves.push_back(std::move(position_move));
          // The anchor's WAIT never moves; the level's other WAITs go right
          // before it, so the next level's address loads follow all of them.
          if (!pcs.empty()) s.moves.push_back({pcs, pc_at(before)});
        }
      }
      if (s.moves.empty()) continue;
      s.predicted_saving_cycles = predict(position_moves);
      s.push_limit_cycles = s.hidden_stall_cycles;
      s.text = fmt::format(
          "issue the {} dependent-DMA chains of {} level by level (all chains' level-n DMAs, then their WAITs, then "
          "level n+1) instead of one chain after another: their heads are independent, and the {} cycles of base "
          "latency stalls would overlap to about {}{}; suggested on chip {}'s stream, assuming every chip runs the "
          "same text",
          chains.size(), op_label(op), sum_base, max_base,
          register_risk ? "; the chains reuse registers, so the interleaved order is legal only where each level's "
                          "registers are consumed by its own ISSUE (what renaming to distinct registers would give; "
                          "verification checks)"
                        : "",
          s.chip);
      s.text += taken_back_note(s);
      out.push_back(std::move(s));
    }
    return out;
  }

  const SuggestionInputs& in_;
  const AnalyzeOptions& options_;
  MoveRules rules_;
  SavingModel model_;
};

}  // namespace

std::vector<Suggestion> suggest(const SuggestionInputs& inputs, const AnalyzeOptions& options) {
  if (options.suggestion_chip >= inputs.index.chip_count()) return {};
  return Suggester(inputs, options).run();
}

}  // namespace snr::analyze
