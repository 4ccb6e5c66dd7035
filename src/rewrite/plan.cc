#include "rewrite/plan.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <unordered_set>

#include "isa/disasm.h"
#include "isa/isa.h"

namespace snr::rewrite {
namespace {

using isa::Opcode;

bool is_branch(Opcode op) {
  return op == Opcode::kBeq || op == Opcode::kBne || op == Opcode::kBlt || op == Opcode::kBge ||
         op == Opcode::kBltu || op == Opcode::kBgeu;
}
bool is_control(Opcode op) { return is_branch(op) || op == Opcode::kJal || op == Opcode::kJalr; }
bool is_system(Opcode op) { return op == Opcode::kEcall || op == Opcode::kEbreak; }

int64_t sext32(uint64_t value) { return static_cast<int32_t>(static_cast<uint32_t>(value)); }

// An instruction that uses an auipc result only through its 12-bit
// immediate (so the immediate can absorb a changed upper part).
bool is_low_part_user(const isa::DecodedInstruction& d, uint8_t reg) {
  const isa::Effect effect = d.row->effect;
  if (d.opcode == Opcode::kAddi && d.rs1 == reg) return true;
  if (d.opcode == Opcode::kJalr && d.rs1 == reg) return true;
  if (effect == isa::Effect::kLoad && d.rs1 == reg) return true;
  if (effect == isa::Effect::kStore && d.rs1 == reg && d.rs2 != reg) return true;
  return false;
}

bool reads_x(const isa::DecodedInstruction& d, uint8_t reg) {
  for (isa::OperandKind kind : d.row->operands) {
    switch (kind) {
      case isa::OperandKind::kRs1:
      case isa::OperandKind::kMemI:
      case isa::OperandKind::kMemS:
        if (d.rs1 == reg) return true;
        break;
      case isa::OperandKind::kRs2:
        if (d.rs2 == reg) return true;
        break;
      case isa::OperandKind::kRs3:
        if (d.rs3 == reg || (d.row->effect == isa::Effect::kDma2d && d.rs3 + 1 == reg)) return true;
        break;
      default: break;
    }
  }
  // Implicit reads (ecall arguments): treat as a use that cannot be fixed.
  return d.opcode == Opcode::kEcall;
}

bool writes_x(const isa::DecodedInstruction& d, uint8_t reg) {
  for (isa::OperandKind kind : d.row->operands) {
    if (kind == isa::OperandKind::kRd && d.rd == reg) return true;
  }
  return false;
}

class Planner {
 public:
  Planner(const replay::ReplayInput& input, RewritePlan& plan) : plan_(plan) {
    std::map<uint64_t, uint32_t> words;
    for (const replay::CodeRange& range : input.code) {
      for (size_t i = 0; i < range.words.size(); ++i) words.emplace(range.address + 4 * i, range.words[i]);
    }
    if (words.empty()) return;
    plan_.text_base = words.begin()->first;
    const size_t slots = static_cast<size_t>((words.rbegin()->first - plan_.text_base) / 4 + 1);
    plan_.known.assign(slots, false);
    plan_.old_words.assign(slots, 0);
    for (const auto& [address, word] : words) {
      plan_.known[plan_.slot(address)] = true;
      plan_.old_words[plan_.slot(address)] = word;
    }
    order_.resize(slots);
    position_.resize(slots);
    for (size_t s = 0; s < slots; ++s) order_[s] = position_[s] = s;
    plan_.moved.assign(slots, false);
  }

  bool apply(const analyze::CodeMove& move, size_t index) {
    const std::string which = fmt::format("move {}", index + 1);
    if (move.pcs.empty()) return fail(fmt::format("{} names no instructions", which));
    if (!plan_.contains(move.before_pc)) {
      return fail(fmt::format("{}: before_pc {:#x} is not in the recorded code", which, move.before_pc));
    }
    const size_t before = position_[plan_.slot(move.before_pc)];
    size_t last = before;
    std::unordered_set<size_t> moving;
    for (uint64_t pc : move.pcs) {
      if (!plan_.contains(pc)) return fail(fmt::format("{}: pc {:#x} is not in the recorded code", which, pc));
      const size_t old_slot = plan_.slot(pc);
      if (!moving.insert(old_slot).second) return fail(fmt::format("{}: pc {:#x} is listed twice", which, pc));
      const isa::DecodedInstruction d = isa::decode(plan_.old_words[old_slot]);
      if (!d.valid()) return fail(fmt::format("{}: {} is not a valid instruction", which, describe_old(plan_, pc)));
      if (is_control(d.opcode) || is_system(d.opcode)) {
        return fail(fmt::format("{}: {} changes control flow and cannot be moved", which, describe_old(plan_, pc)));
      }
      // before_pc may itself be listed: the group then lands where it was.
      if (position_[old_slot] < before || (position_[old_slot] == before && pc != move.before_pc)) {
        return fail(fmt::format("{}: {} does not come after before_pc {}", which, describe_old(plan_, pc),
                                describe_old(plan_, move.before_pc)));
      }
      last = std::max(last, position_[old_slot]);
    }
    for (size_t s = before; s <= last; ++s) {
      if (!plan_.known[s]) {
        return fail(fmt::format("{}: the code between {} and the moved instructions has a gap at {:#x}", which,
                                describe_old(plan_, move.before_pc), plan_.text_base + 4 * s));
      }
    }
    std::vector<size_t> segment;
    segment.reserve(last - before + 1);
    for (uint64_t pc : move.pcs) segment.push_back(plan_.slot(pc));
    for (size_t s = before; s <= last; ++s) {
      if (!moving.count(order_[s])) segment.push_back(order_[s]);
    }
    for (size_t k = 0; k < segment.size(); ++k) {
      order_[before + k] = segment[k];
      position_[segment[k]] = before + k;
    }
    for (size_t old_slot : moving) plan_.moved[old_slot] = true;
    return true;
  }

  bool finish() {
    const size_t slots = order_.size();
    plan_.new_pc_of_old.resize(slots);
    plan_.old_pc_at.resize(slots);
    for (size_t s = 0; s < slots; ++s) {
      plan_.new_pc_of_old[s] = plan_.text_base + 4 * position_[s];
      plan_.old_pc_at[s] = plan_.text_base + 4 * order_[s];
    }
    plan_.moved_instructions = static_cast<uint64_t>(std::count(plan_.moved.begin(), plan_.moved.end(), true));
    // Spans: union of [min(slot, origin), max(slot, origin)] over permuted
    // slots; each union is closed under the permutation.
    for (size_t s = 0; s < slots; ++s) {
      if (order_[s] == s) continue;
      const uint64_t lo = plan_.text_base + 4 * std::min(s, order_[s]);
      const uint64_t hi = plan_.text_base + 4 * (std::max(s, order_[s]) + 1);
      if (!plan_.spans.empty() && lo <= plan_.spans.back().end) {
        plan_.spans.back().end = std::max(plan_.spans.back().end, hi);
      } else {
        plan_.spans.push_back({lo, hi});
      }
    }
    plan_.new_words.resize(slots);
    for (size_t s = 0; s < slots; ++s) plan_.new_words[s] = plan_.old_words[order_[s]];
    for (size_t s = 0; s < slots; ++s) {
      if (plan_.known[s] && !fix_control(s)) return false;
    }
    for (size_t s = 0; s < slots; ++s) {
      if (plan_.known[s] && !fix_auipc(s)) return false;
    }
    for (size_t s = 0; s < slots; ++s) {
      if (plan_.new_words[s] != plan_.old_words[order_[s]]) ++plan_.reencoded_words;
    }
    return true;
  }

  bool fail(std::string why) {
    plan_.problem = std::move(why);
    return false;
  }

 private:
  // A control transfer to the first slot of a span enters it where the
  // original code did (the moved instructions now come first there);
  // anywhere else the target follows its instruction.
  uint64_t map_target(uint64_t target) const {
    const Span* span = plan_.span_of(target);
    if (span != nullptr && span->start == target) return target;
    return plan_.new_pc(target);
  }

  bool fix_control(size_t old_slot) {
    const isa::DecodedInstruction d = isa::decode(plan_.old_words[old_slot]);
    if (!d.valid() || !(is_branch(d.opcode) || d.opcode == Opcode::kJal)) return true;
    const uint64_t old_pc = plan_.text_base + 4 * old_slot;
    const uint64_t new_pc = plan_.new_pc(old_pc);
    const uint64_t target = old_pc + static_cast<uint64_t>(d.imm);
    const uint64_t new_target = map_target(target);
    if (new_pc == old_pc && new_target == target) return true;
    isa::DecodedInstruction fields = d;
    fields.imm = static_cast<int64_t>(new_target - new_pc);
    Result<uint32_t> word = isa::encode(fields);
    if (!word.ok()) {
      return fail(fmt::format("{} moves to {:#x} and its target {:#x} to {:#x}: the new offset cannot be encoded ({})",
                              describe_old(plan_, old_pc), new_pc, target, new_target, word.error().what()));
    }
    plan_.new_words[plan_.slot(new_pc)] = word.value();
    return true;
  }

  // An auipc that changed address: finds every use of its result up to
  // the register's redefinition and gives the upper part and the users'
  // 12-bit immediates values that produce the same addresses again.
  bool fix_auipc(size_t old_slot) {
    const isa::DecodedInstruction d = isa::decode(plan_.old_words[old_slot]);
    if (!d.valid() || d.opcode != Opcode::kAuipc || d.rd == 0) return true;
    const uint64_t old_pc = plan_.text_base + 4 * old_slot;
    const uint64_t new_pc = plan_.new_pc(old_pc);
    if (new_pc == old_pc) return true;
    const uint64_t value = old_pc + static_cast<uint64_t>(sext32(static_cast<uint64_t>(d.imm) << 12));
    std::vector<size_t> users;
    constexpr size_t kMaxScan = 256;
    bool dead = false;
    for (size_t s = old_slot + 1; s < plan_.known.size() && s <= old_slot + kMaxScan; ++s) {
      const uint64_t pc = plan_.text_base + 4 * s;
      if (!plan_.known[s]) break;
      const isa::DecodedInstruction u = isa::decode(plan_.old_words[s]);
      if (!u.valid()) break;
      if (reads_x(u, d.rd)) {
        if (!is_low_part_user(u, d.rd)) {
          return fail(fmt::format("{} moves to {:#x}, but its result x{} is used by {}, which cannot be re-encoded",
                                  describe_old(plan_, old_pc), new_pc, d.rd, describe_old(plan_, pc)));
        }
        users.push_back(s);
      }
      if (writes_x(u, d.rd)) {
        dead = true;
        break;
      }
      if (is_control(u.opcode) || is_system(u.opcode)) break;
    }
    if (!dead) {
      return fail(fmt::format("{} moves to {:#x}, but its result x{} stays live past the next {} instructions or a "
                              "control transfer, so not every use can be re-encoded",
                              describe_old(plan_, old_pc), new_pc, d.rd, kMaxScan));
    }
    int64_t lo_min = 0, lo_max = 0;
    std::vector<isa::DecodedInstruction> user_fields;
    for (size_t s : users) {
      user_fields.push_back(isa::decode(plan_.old_words[s]));
      lo_min = std::min(lo_min, user_fields.back().imm);
      lo_max = std::max(lo_max, user_fields.back().imm);
    }
    // new auipc result R' = new_pc + (hi << 12); users add imm + (value - R').
    const int64_t distance = static_cast<int64_t>(value - new_pc);
    const int64_t hi_floor = distance >> 12;
    for (int64_t hi : {hi_floor, hi_floor + 1}) {
      const int64_t delta = distance - hi * 4096;
      if (lo_min + delta < -2048 || lo_max + delta > 2047) continue;
      if (hi < -(int64_t{1} << 19) || hi >= (int64_t{1} << 19)) continue;
      isa::DecodedInstruction fields = d;
      fields.imm = hi & 0xFFFFF;
      plan_.new_words[plan_.slot(new_pc)] = isa::encode(fields).value();
      for (size_t k = 0; k < users.size(); ++k) {
        isa::DecodedInstruction user = user_fields[k];
        user.imm += delta;
        plan_.new_words[plan_.slot(plan_.new_pc_of_old[users[k]])] = isa::encode(user).value();
      }
      return true;
    }
    return fail(fmt::format("{} moves to {:#x}: no upper immediate keeps every use's 12-bit offset in range",
                            describe_old(plan_, old_pc), new_pc));
  }

  RewritePlan& plan_;
  std::vector<size_t> order_;     // new slot -> old slot
  std::vector<size_t> position_;  // old slot -> new slot
};

}  // namespace

const Span* RewritePlan::span_of(uint64_t pc) const {
  auto it = std::upper_bound(spans.begin(), spans.end(), pc, [](uint64_t p, const Span& s) { return p < s.start; });
  if (it == spans.begin()) return nullptr;
  --it;
  return pc < it->end ? &*it : nullptr;
}

std::string describe_old(const RewritePlan& plan, uint64_t old_pc) {
  if (!plan.contains(old_pc)) return fmt::format("pc {:#x}", old_pc);
  const isa::DecodedInstruction d = isa::decode(plan.old_words[plan.slot(old_pc)]);
  return fmt::format("pc {:#x} ({})", old_pc, d.valid() ? isa::disassemble(d, old_pc) : std::string("illegal"));
}

RewritePlan plan_moves(const replay::ReplayInput& input, const std::vector<analyze::CodeMove>& moves) {
  RewritePlan plan;
  Planner planner(input, plan);
  if (plan.known.empty()) {
    plan.problem = "the recording holds no executed code";
    return plan;
  }
  for (size_t i = 0; i < moves.size(); ++i) {
    if (!planner.apply(moves[i], i)) return plan;
  }
  if (!planner.finish()) return plan;
  plan.valid = true;
  return plan;
}

replay::ReplayInput apply_plan(const replay::ReplayInput& input, const RewritePlan& plan) {
  replay::ReplayInput out = input;
  out.identity += fmt::format(" rewritten ({} instructions moved)", plan.moved_instructions);
  for (replay::CodeRange& range : out.code) {
    for (size_t i = 0; i < range.words.size(); ++i) {
      const uint64_t pc = range.address + 4 * i;
      if (plan.contains(pc)) range.words[i] = plan.new_words[plan.slot(pc)];
    }
  }
  // Outside spans addresses are unchanged; a span is traversed straight
  // through in both texts (the legality check requires it), so a recorded
  // sequence of slot addresses is the same in the rewritten text.
  for (replay::ReplayChip& chip : out.chips) {
    for (uint64_t& pc : chip.pcs) {
      if (plan.span_of(pc) == nullptr) pc = plan.new_pc(pc);
    }
    if (chip.end.known && plan.span_of(chip.end.pc) == nullptr) chip.end.pc = plan.new_pc(chip.end.pc);
  }
  return out;
}

snapshot::Snapshot apply_plan(const snapshot::Snapshot& snapshot, const RewritePlan& plan) {
  snapshot::Snapshot out = snapshot;
  for (snapshot::pb::Chip& chip : out.chips) {
    for (snapshot::pb::CodeRange& range : *chip.mutable_code()) {
      std::string data = range.data();
      for (size_t i = 0; i + 4 <= data.size(); i += 4) {
        const uint64_t pc = range.address() + i;
        if (!plan.contains(pc)) continue;
        const uint32_t word = plan.new_words[plan.slot(pc)];
        std::memcpy(data.data() + i, &word, 4);
      }
      range.set_data(std::move(data));
    }
  }
  return out;
}

}  // namespace snr::rewrite
