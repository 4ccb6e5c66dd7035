#include "record/recorder.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>
#include <unordered_map>

#include "common/error.h"
#include "common/hash.h"
#include "device/memory_windows.h"
#include "hw/config.h"
#include "isa/access.h"
#include "isa/compressed.h"
#include "isa/disasm.h"
#include "isa/registers.h"
#include "record/interval_set.h"
#include "record/linux_syscalls.h"
#include "record/recorder_internal.h"

namespace snr::record {
namespace detail {

void Recorder::fail_at(const ChipRecord& chip, uint32_t word, const std::string& why) const {
  throw Error(fmt::format("chip {} step {} pc {:#x} ({:#010x} {}): {}", chip.chip, chip.pcs.size(), chip.pc, word,
                          isa::disassemble(decode_word(word), chip.pc), why));
}

ChipRecord& Recorder::owner(ChipRecord& issuer, bool remote, uint32_t chip) {
  if (!remote) return issuer;
  if (chip >= chips_.size()) {
    throw Error(fmt::format("chip {} pc {:#x}: remote access to chip {}, but the target has {} threads", issuer.chip,
                            issuer.pc, chip, chips_.size()));
  }
  return chips_[chip];
}

uint32_t Recorder::fetch_word(ChipRecord& chip) {
  if (auto it = chip.words.find(chip.pc); it != chip.words.end()) return it->second;
  if (flat_) {
    // Any halfword-aligned pc; the second half only for a 32-bit instruction.
    if ((chip.pc & 1) != 0) throw Error(fmt::format("chip {}: pc {:#x} is not halfword aligned", chip.chip, chip.pc));
    uint32_t word = code_halfword(chip, chip.pc);
    if (isa::instruction_bytes(word) == 4) word |= uint32_t{code_halfword(chip, chip.pc + 2)} << 16;
    chip.words.emplace(chip.pc, word);
    return word;
  }
  const uint64_t block = chip.pc & ~(kCodeBlockBytes - 1);
  std::optional<std::string> bytes = target_.try_read_memory(chip.thread, block, kCodeBlockBytes);
  uint64_t base = block;
  if (!bytes) {
    bytes = target_.read_memory(chip.thread, chip.pc, 4);
    base = chip.pc;
  }
  for (size_t i = 0; i + 4 <= bytes->size(); i += 4) {
    uint32_t word = 0;
    for (int b = 0; b < 4; ++b) word |= uint32_t{static_cast<uint8_t>((*bytes)[i + b])} << (8 * b);
    chip.words.emplace(base + i, word);
  }
  return chip.words.at(chip.pc);
}

std::string Recorder::read_state(ChipRecord& owner_chip, const isa::StateRef& ref) {
  auto window = [&](uint64_t address, uint64_t bytes) {
    if (!target_.is_snr_device()) {
      throw Error(fmt::format("{}{} lives in the snr device's memory windows, which this target does not have",
                              isa::state_kind_name(ref.kind), ref.index));
    }
    return target_.read_memory(owner_chip.thread, address, bytes);
  };
  switch (ref.kind) {
    case isa::StateKind::kX: return std::string(reinterpret_cast<const char*>(&owner_chip.x[ref.index]), 8);
    case isa::StateKind::kPc: return std::string(reinterpret_cast<const char*>(&owner_chip.pc), 8);
    case isa::StateKind::kV:
      return window(device::vector_window_address(ref.index), isa::kVectorRegisterBytes);
    case isa::StateKind::kMxuWeights:
      return window(device::mxu_weights_window_address(ref.index), isa::kMxuWeightTileBytes);
    case isa::StateKind::kMxuAccumulator:
      return window(device::mxu_accumulator_window_address(ref.index), device::kMxuAccumulatorWindowStride);
    case isa::StateKind::kSemaphore:
      return target_.read_named_register(owner_chip.thread, fmt::format("sem{}", ref.index));
    case isa::StateKind::kCsr: {
      const std::string_view name = isa::csr_name(ref.index);
      if (name.empty()) throw Error(fmt::format("CSR {:#x} has no name to read it by", ref.index));
      std::string value = target_.read_named_register(owner_chip.thread, name);
      value.resize(8, '\0');
      return value;
    }
  }
  throw Error("unknown state kind");
}

std::string Recorder::read_initial_memory(ChipRecord& chip, uint64_t begin, uint64_t end) {
  if (end - begin > kPrefetchBlockBytes) return target_.read_memory(chip.thread, begin, end - begin);
  std::string out;
  for (uint64_t at = begin; at < end;) {
    const uint64_t block = at & ~(kPrefetchBlockBytes - 1);
    const uint64_t piece_end = std::min(end, block + kPrefetchBlockBytes);
    auto it = chip.initial_blocks.find(block);
    if (it == chip.initial_blocks.end() && !chip.unreadable_blocks.count(block)) {
      if (std::optional<std::string> bytes = target_.try_read_memory(chip.thread, block, kPrefetchBlockBytes)) {
        it = chip.initial_blocks.emplace(block, std::move(*bytes)).first;
      } else {
        chip.unreadable_blocks.insert(block);  // e.g. the block runs past the end of a memory
      }
    }
    if (it != chip.initial_blocks.end()) {
      out.append(it->second, at - block, piece_end - at);
    } else {
      out += target_.read_memory(chip.thread, at, piece_end - at);
    }
    at = piece_end;
  }
  return out;
}

// Appends to gaps_ the bytes of `region` (on `holder`) that no traced
// instruction wrote and that are not saved yet, sorted and merged.
void Recorder::collect_gaps(ChipRecord& holder, const isa::MemoryRegion& region) {
  gaps_.clear();
  for (uint64_t row = 0; row < region.rows; ++row) {
    const uint64_t begin = region.row_address(row);
    unwritten_.clear();
    holder.written_memory.append_missing(begin, begin + region.row_bytes, unwritten_);
    for (const Interval& unwritten : unwritten_) holder.saved_memory.append_missing(unwritten.begin, unwritten.end, gaps_);
  }
  // Rows may overlap (a stride shorter than a row): merge.
  std::sort(gaps_.begin(), gaps_.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  size_t merged = 0;
  for (const Interval& gap : gaps_) {
    if (merged > 0 && gap.begin <= gaps_[merged - 1].end) {
      gaps_[merged - 1].end = std::max(gaps_[merged - 1].end, gap.end);
    } else {
      gaps_[merged++] = gap;
    }
  }
  gaps_.resize(merged);
}

// True when every input of the instruction is already saved or was
// written inside the window: stepping it needs no read from the stub.
bool Recorder::inputs_saved(ChipRecord& chip, const isa::Accesses& accesses) {
  for (const isa::StateRef& ref : accesses.reads()) {
    if (ref.kind == isa::StateKind::kPc || ref.kind == isa::StateKind::kX) continue;
    ChipRecord& holder = owner(chip, ref.remote, ref.chip);
    const uint32_t key = state_key(ref.kind, ref.index);
    if (!holder.written_state.count(key) && !holder.saved_state.count(key)) return false;
  }
  for (const isa::MemoryRegion& region : accesses.memory()) {
    if (region.is_write) continue;
    collect_gaps(owner(chip, region.remote, region.chip), region);
    if (!gaps_.empty()) return false;
  }
  return true;
}

// x registers come from the recorder's own copy (kept current by the stop
// replies), never from the stub, and only the chip's own steps write them:
// saving them needs no read and no wait for steps in flight.
void Recorder::save_x_inputs(ChipRecord& chip, const isa::Accesses& accesses) {
  for (const isa::StateRef& ref : accesses.reads()) {
    if (ref.kind == isa::StateKind::kX) save_x_register(chip, ref.index);
  }
}

void Recorder::save_x_register(ChipRecord& chip, uint16_t index) {
  if (index == 0) return;
  const uint32_t key = state_key(isa::StateKind::kX, index);
  if (chip.written_state.count(key) || chip.saved_state.count(key)) return;
  pb::RegisterValue value;
  value.set_kind(pb::STATE_X);
  value.set_index(index);
  value.set_value(std::string(reinterpret_cast<const char*>(&chip.x[index]), 8));
  chip.saved_registers.push_back(std::move(value));
  chip.saved_state.insert(key);
}

void Recorder::retire(ChipRecord& chip, uint64_t old_pc) {
  chip.pcs.push_back(old_pc);
  if (!schedule_.empty() && schedule_.back().first == chip.chip) {
    ++schedule_.back().second;
  } else {
    schedule_.emplace_back(chip.chip, 1);
  }
  ++retired_;
}

void Recorder::save_inputs(ChipRecord& chip, const isa::Accesses& accesses) {
  for (const isa::StateRef& ref : accesses.reads()) {
    if (ref.kind == isa::StateKind::kPc || ref.kind == isa::StateKind::kX) continue;
    ChipRecord& holder = owner(chip, ref.remote, ref.chip);
    const uint32_t key = state_key(ref.kind, ref.index);
    if (holder.written_state.count(key) || holder.saved_state.count(key)) continue;
    pb::RegisterValue value;
    value.set_kind(snapshot::to_pb_state_kind(ref.kind));
    value.set_index(ref.index);
    value.set_value(read_state(holder, ref));
    holder.saved_registers.push_back(std::move(value));
    holder.saved_state.insert(key);
  }
  for (const isa::MemoryRegion& region : accesses.memory()) {
    if (region.is_write) continue;
    ChipRecord& holder = owner(chip, region.remote, region.chip);
    collect_gaps(holder, region);
    // Gaps close together (rows of a strided DMA, pieces around bytes the
    // window already wrote) are fetched with one read of their span; the
    // bytes between them are read and dropped.
    for (size_t first = 0; first < gaps_.size();) {
      size_t last = first;
      while (last + 1 < gaps_.size() && gaps_[last + 1].begin - gaps_[last].end <= kCoalesceSlackBytes &&
             gaps_[last + 1].end - gaps_[first].begin <= kMaxCoalescedReadBytes) {
        ++last;
      }
      const uint64_t span_begin = gaps_[first].begin;
      std::string span = read_initial_memory(holder, span_begin, gaps_[last].end);
      if (first == last) {
        // One gap is the whole span: keep the buffer rather than copy it.
        holder.saved_bytes.emplace(span_begin, std::move(span));
        holder.saved_memory.add(gaps_[first].begin, gaps_[first].end);
        first = last + 1;
        continue;
      }
      for (size_t i = first; i <= last; ++i) {
        const Interval& gap = gaps_[i];
        holder.saved_bytes.emplace(gap.begin, span.substr(gap.begin - span_begin, gap.end - gap.begin));
        holder.saved_memory.add(gap.begin, gap.end);
      }
      first = last + 1;
    }
  }
}

void Recorder::note_outputs(ChipRecord& chip, const isa::Accesses& accesses) {
  for (const isa::StateRef& ref : accesses.writes()) {
    owner(chip, ref.remote, ref.chip).written_state.insert(state_key(ref.kind, ref.index));
  }
  for (const isa::MemoryRegion& region : accesses.memory()) {
    if (!region.is_write) continue;
    ChipRecord& holder = owner(chip, region.remote, region.chip);
    for (uint64_t row = 0; row < region.rows; ++row) {
      holder.written_memory.add(region.row_address(row), region.row_address(row) + region.row_bytes);
    }
  }
}

void Recorder::start_step(ChipRecord& chip) {
  if (!chip.words.count(chip.pc)) finish_steps();  // the code read must not overtake steps in flight
  InFlightStep step;
  step.chip = &chip;
  step.word = fetch_word(chip);
  step.decoded = decode_word(step.word);
  const isa::DecodedInstruction& d = step.decoded;
  if (!d.valid()) fail_at(chip, step.word, "illegal instruction");
  const bool exit_call = chip.x[17] == isa::kSyscallExit || (flat_ && chip.x[17] == kLinuxExitGroup);
  if (d.opcode == isa::Opcode::kEcall && exit_call) {
    // Stepping the exit would end the process before the final state can be
    // read; the window ends just before it.
    chip.done = true;
    chip.end = "exit";
    return;
  }
  if (d.opcode == isa::Opcode::kEbreak) {
    chip.done = true;
    chip.end = "ebreak";
    return;
  }
  if (flat_ && d.opcode == isa::Opcode::kEcall) {
    record_syscall(chip, step.word);
    return;
  }
  isa::compute_accesses(d, std::span<const uint64_t, 32>(chip.x), step.accesses);
  save_x_inputs(chip, step.accesses);
  // Inputs are read with every earlier step complete, exactly as if
  // stepping one at a time; an instruction whose inputs are all saved or
  // written already steps without waiting for the steps before it (what
  // they write can only shrink what it needs).
  if (!inputs_saved(chip, step.accesses)) {
    finish_steps();
    try {
      save_inputs(chip, step.accesses);
    } catch (const Error& e) {
      fail_at(chip, step.word, fmt::format("reading inputs: {}", e.what()));
    }
  }
  step.old_pc = chip.pc;
  in_flight_.push_back(step);
  if (!pipeline_) {
    finish_steps();
    return;
  }
  try {
    target_.queue_step(chip.thread);
  } catch (const Error& e) {
    fail_at(chip, step.word, e.what());
  }
}

void Recorder::finish_steps() {
  if (in_flight_.empty()) return;
  replies_.clear();
  // Every reply first: a step that needs a register read afterwards (a
  // stub that expedites nothing) may only make it with no request in flight.
  for (const InFlightStep& step : in_flight_) {
    try {
      replies_.push_back(pipeline_ ? target_.receive_step(step.chip->thread) : target_.step(step.chip->thread));
    } catch (const Error& e) {
      fail_at(*step.chip, step.word, e.what());
    }
  }
  for (size_t i = 0; i < in_flight_.size(); ++i) round_retired_ |= finish_step(in_flight_[i], replies_[i]);
  in_flight_.clear();
}

// True when the instruction retired.
bool Recorder::finish_step(const InFlightStep& step, const StepReply& reply) {
  ChipRecord& chip = *step.chip;
  const isa::DecodedInstruction& d = step.decoded;
  if (reply.exited) fail_at(chip, step.word, "the process exited during the step");
  if (reply.signal != 5) fail_at(chip, step.word, fmt::format("the step stopped with signal {}", reply.signal));
  bool need_registers = !reply.pc.has_value();
  std::array<uint64_t, 32> x = chip.x;
  for (const auto& [reg, value] : reply.x_values) x[reg] = value;
  for (const isa::StateRef& ref : step.accesses.writes()) {
    if (ref.kind != isa::StateKind::kX || ref.index == 0) continue;
    bool expedited = false;
    for (const auto& [reg, value] : reply.x_values) expedited |= reg == ref.index;
    need_registers |= !expedited;
  }
  uint64_t new_pc = reply.pc.value_or(0);
  if (need_registers) {
    const RemoteTarget::GeneralRegisters regs = target_.read_general(chip.thread);
    x = regs.x;
    new_pc = regs.pc;
  }
  const bool blocked = reply.blocked || (d.opcode == isa::Opcode::kSemWait && new_pc == step.old_pc);
  if (blocked) {
    ++not_retired_;
    return false;
  }
  note_outputs(chip, step.accesses);
  chip.x = x;
  chip.pc = new_pc;
  retire(chip, step.old_pc);
  return true;
}

void Recorder::report_progress(bool force) {
  if (!options_.progress) return;
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_progress_ < options_.progress_interval) return;
  last_progress_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const uint64_t total = options_.count_per_chip * static_cast<uint64_t>(
      std::count_if(chips_.begin(), chips_.end(), [](const ChipRecord& c) { return c.recorded; }));
  options_.progress(fmt::format("recorded {} of up to {} instructions ({:.0f}/s)", retired_, total,
                                seconds > 0 ? static_cast<double>(retired_) / seconds : 0.0));
}

pb::Chip Recorder::finish_chip(ChipRecord& chip) {
  pb::Chip out;
  out.set_chip(chip.chip);
  out.set_recorded(chip.recorded);
  std::sort(chip.saved_registers.begin(), chip.saved_registers.end(),
            [](const pb::RegisterValue& a, const pb::RegisterValue& b) {
              return std::pair(a.kind(), a.index()) < std::pair(b.kind(), b.index());
            });
  for (pb::RegisterValue& value : chip.saved_registers) *out.add_registers() = std::move(value);
  // Each saved piece becomes its own region, moved, never copied: joining
  // adjacent pieces into one buffer copied hundreds of megabytes while the
  // freed pieces stayed in the heap (0.5 GB more peak memory on the demo's
  // window). Regions never overlap; adjacent ones are fine for every reader.
  for (auto& [address, bytes] : chip.saved_bytes) {
    pb::MemoryRegion* region = out.add_memory();
    region->set_space(space_of(address));
    region->set_address(address);
    region->set_data(std::move(bytes));
  }
  chip.saved_bytes.clear();
  if (flat_) {
    // The pages the window touched: whatever it read (saved) or wrote,
    // instructions and kernel alike, as merged page-aligned ranges.
    IntervalSet pages;
    constexpr uint64_t kPage = snapshot::kFlatPageBytes;
    for (const IntervalSet* set : {&chip.saved_memory, &chip.written_memory}) {
      for (const Interval& touched : set->intervals()) {
        pages.add(touched.begin & ~(kPage - 1), (touched.end + kPage - 1) & ~(kPage - 1));
      }
    }
    for (const Interval& range : pages.intervals()) {
      pb::Interval* out_range = out.add_pages();
      out_range->set_address(range.begin);
      out_range->set_length(range.end - range.begin);
    }
    for (pb::Syscall& call : chip.syscalls) *out.add_syscalls() = std::move(call);
    chip.syscalls.clear();
  }
  if (chip.recorded) {
    std::vector<uint64_t> unique_pcs = chip.pcs;
    std::sort(unique_pcs.begin(), unique_pcs.end());
    unique_pcs.erase(std::unique(unique_pcs.begin(), unique_pcs.end()), unique_pcs.end());
    // The bytes of every executed instruction (2 for a compressed one),
    // adjacent ones in one range.
    pb::CodeRange* range = nullptr;
    for (uint64_t pc : unique_pcs) {
      const uint32_t word = chip.words.at(pc);
      const uint64_t length = isa::instruction_bytes(word);
      const uint64_t range_end = range == nullptr ? 0 : range->address() + range->data().size();
      if (range == nullptr || pc > range_end) {
        range = out.add_code();
        range->set_address(pc);
        range->mutable_data()->append(reinterpret_cast<const char*>(&word), length);
      } else if (pc + length > range_end) {
        range->mutable_data()->append(reinterpret_cast<const char*>(&word) + (range_end - pc), pc + length - range_end);
      }
    }
    for (const pb::Symbol& symbol : options_.symbols) {
      const uint64_t symbol_end = symbol.address() + std::max<uint64_t>(symbol.size_bytes(), 1);
      const bool executed = std::any_of(out.code().begin(), out.code().end(), [&](const pb::CodeRange& code) {
        return symbol.address() < code.address() + code.data().size() && symbol_end > code.address();
      });
      if (executed) *out.add_symbols() = symbol;
    }
    if (!chip.pcs.empty()) out.set_first_pc(chip.pcs.front());
    out.set_instruction_count(chip.pcs.size());
    out.set_pc_deltas(snapshot::encode_pc_deltas(chip.pcs));
  }
  // The state the device reached, for re-execution to compare against.
  pb::FinalState* final_state = out.mutable_final_state();
  if (chip.recorded) {
    const RemoteTarget::GeneralRegisters regs = target_.read_general(chip.thread);
    for (uint64_t value : regs.x) final_state->add_x(value);
    final_state->set_pc(regs.pc);
    final_state->set_end(chip.end);
  }
  uint64_t hash = kFnvOffsetBasis;
  for (const Interval& interval : chip.written_memory.intervals()) {
    pb::Interval* written = final_state->add_written_memory();
    written->set_address(interval.begin);
    written->set_length(interval.end - interval.begin);
    hash = snapshot::hash_region(hash, interval.begin,
                                 target_.read_memory(chip.thread, interval.begin, interval.end - interval.begin));
  }
  final_state->set_written_memory_hash(hash);
  for (uint32_t key : chip.written_state) {
    isa::StateRef ref;
    ref.kind = static_cast<isa::StateKind>(key >> 16);
    ref.index = static_cast<uint16_t>(key & 0xFFFF);
    if (ref.kind == isa::StateKind::kX || ref.kind == isa::StateKind::kPc) continue;
    if (!chip.recorded && ref.kind == isa::StateKind::kCsr) continue;
    pb::RegisterValue* value = final_state->add_written_state();
    value->set_kind(snapshot::to_pb_state_kind(ref.kind));
    value->set_index(ref.index);
    value->set_value(read_state(chip, ref));
  }
  return out;
}

snapshot::Snapshot Recorder::run() {
  const std::vector<uint32_t>& threads = target_.thread_ids();
  for (uint32_t i = 0; i < threads.size(); ++i) {
    ChipRecord& chip = chips_.emplace_back();
    chip.chip = i;
    chip.thread = threads[i];
    chip.recorded = !options_.chips.has_value();
  }
  if (options_.chips) {
    for (uint32_t id : *options_.chips) {
      if (id >= chips_.size()) {
        throw Error(fmt::format("--chips names chip {}, but the target has {} chips (threads)", id, chips_.size()));
      }
      chips_[id].recorded = true;
    }
  }
  // A target already stopped at the breakpoint on every chip (the break is
  // the program's entry) starts its window there: continuing would run
  // past the only time that pc is reached.
  bool at_breakpoint = options_.breakpoint_address.has_value();
  for (const ChipRecord& chip : chips_) {
    if (!at_breakpoint) break;
    at_breakpoint = target_.read_general(chip.thread).pc == *options_.breakpoint_address;
  }
  if (options_.breakpoint_address && !at_breakpoint) {
    target_.insert_breakpoint(*options_.breakpoint_address);
    target_.continue_all();
    target_.remove_breakpoint(*options_.breakpoint_address);
  }
  start_ = last_progress_ = std::chrono::steady_clock::now();
  for (ChipRecord& chip : chips_) {
    const RemoteTarget::GeneralRegisters regs = target_.read_general(chip.thread);
    chip.x = regs.x;
    chip.pc = regs.pc;
  }
  // One round steps every recorded chip once, all steps in flight together.
  pipeline_ = options_.pipeline_steps && target_.can_pipeline_steps();
  flat_ = !target_.is_snr_device();
  for (;;) {
    bool any_active = false;
    round_retired_ = false;
    for (ChipRecord& chip : chips_) {
      if (!chip.recorded || chip.done) continue;
      if (chip.pcs.size() >= options_.count_per_chip) {
        chip.done = true;
        chip.end = "count";
        continue;
      }
      start_step(chip);
      any_active |= !chip.done;
    }
    finish_steps();
    const bool any_retired = round_retired_;
    if (!any_active) break;
    if (!any_retired) {
      // Every chip still in the window waits on a semaphore that only an
      // unrecorded chip, or nothing, would signal: the window ends here.
      for (ChipRecord& chip : chips_) {
        if (chip.recorded && !chip.done) {
          chip.done = true;
          chip.end = "blocked";
        }
      }
      break;
    }
    report_progress(false);
  }
  const auto wall = std::chrono::steady_clock::now() - start_;
  report_progress(true);

  snapshot::Snapshot snapshot;
  pb::Header& header = snapshot.header;
  header.set_isa_hash(isa::isa_table_hash());
  const std::string yaml = target_.hw_config_yaml().empty() ? options_.fallback_hw_config_yaml : target_.hw_config_yaml();
  header.set_hw_config_yaml(yaml);
  header.set_chip_count(static_cast<uint32_t>(chips_.size()));
  header.set_target(target_.description_summary());
  header.set_breakpoint(options_.breakpoint_text);
  header.set_breakpoint_address(options_.breakpoint_address.value_or(0));
  header.set_requested_count(options_.count_per_chip);
  header.set_address_space(flat_ ? pb::ADDRESS_SPACE_FLAT : pb::ADDRESS_SPACE_NPU);
  std::string schedule;
  for (const auto& [chip, run] : schedule_) {
    snapshot::append_varint(schedule, chip);
    snapshot::append_varint(schedule, run);
  }
  header.set_schedule(schedule);
  uint64_t captured = 0, recorded_chips = 0;
  for (ChipRecord& chip : chips_) {
    if (chip.recorded) {
      header.add_recorded_chips(chip.chip);
      ++recorded_chips;
    }
    if (!chip.recorded && chip.saved_registers.empty() && chip.saved_bytes.empty() && chip.written_memory.empty() &&
        chip.written_state.empty()) {
      continue;
    }
    pb::Chip out = finish_chip(chip);
    for (const pb::RegisterValue& value : out.registers()) captured += value.value().size();
    for (const pb::MemoryRegion& region : out.memory()) captured += region.data().size();
    for (const pb::CodeRange& code : out.code()) captured += code.data().size();
    snapshot.chips.push_back(std::move(out));
  }
  pb::RecorderStats* stats = header.mutable_stats();
  stats->set_instructions(retired_);
  stats->set_wall_time_ns(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count()));
  stats->set_captured_bytes(captured);
  stats->set_naive_full_state_bytes(target_.hw_config_yaml().empty() ? options_.fallback_naive_state_bytes
                                                                     : naive_state_bytes(yaml, recorded_chips));
  stats->set_steps_not_retired(not_retired_);
  stats->set_round_trips(target_.round_trips());
  stats->set_memory_reads(target_.memory_reads());
  stats->set_register_reads(target_.register_reads());
  target_.detach();
  return snapshot;
}

}  // namespace detail

uint64_t naive_state_bytes(const std::string& hw_config_yaml, uint64_t chips) {
  const hw::HwConfig config = hw::parse_config_yaml(hw_config_yaml, "snapshot hardware config");
  const uint64_t registers = 33 * 8 + isa::kVectorRegisterCount * isa::kVectorRegisterBytes +
                             config.mxu_count * (isa::kMxuWeightTileBytes + isa::kVectorRegisterBytes) +
                             isa::kSemaphoreCount * 4 + 4 * 8;
  return chips * (config.smem_bytes.count + config.vmem_bytes() + config.hbm_bytes.count + registers);
}

snapshot::Snapshot record_window(RemoteTarget& target, const RecordOptions& options) {
  if (options.count_per_chip == 0) throw Error("--count must be at least 1");
  return detail::Recorder(target, options).run();
}

}  // namespace snr::record
