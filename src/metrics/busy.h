// What "busy" means for each unit a run reports (the one definition used by
// `snr run`, the profiler, the replayer's summary and the analyzer), and
// the piecewise-constant busy count that turns busy intervals into
// utilization over any span.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "isa/isa.h"

namespace snr::metrics {

// The units whose utilization is reported, in report order.
//
//   matrix  an MXU is busy while it loads weights, accepts a push (its push
//           interval) or drains; `mxu.count` instances, so a chip's matrix
//           utilization is the mean over its MXUs.
//   vector  busy for the vector unit's issue interval of each vector
//           instruction.
//   scalar  busy for the one cycle of each instruction the scalar core
//           executes itself: scalar ALU, multiply/divide, loads and stores,
//           branches, CSR reads, DMA issue and semaphore/fence instructions
//           (everything that is not vector or matrix work).
//   dma     busy while at least one DMA issued by the chip moves data, from
//           its transfer start to its transfer end; base latency and time
//           queued behind other transfers on a link are not busy.
enum class BusyUnit : uint8_t { kMatrix, kVector, kScalar, kDma };
inline constexpr size_t kBusyUnitCount = 4;
inline constexpr std::array<BusyUnit, kBusyUnitCount> kBusyUnits = {BusyUnit::kMatrix, BusyUnit::kVector,
                                                                    BusyUnit::kScalar, BusyUnit::kDma};

std::string_view busy_unit_name(BusyUnit unit);

// The unit an instruction's occupancy event (sim::UnitBusy, run.db
// `unit_busy`) counts towards. Every ISA unit maps to one of the compute
// units: DMA-issue and sync instructions occupy the scalar core's issue slot.
BusyUnit busy_unit_of(isa::Unit unit);
// The same from run.db's unit name; nullopt for a name the ISA does not have.
std::optional<BusyUnit> busy_unit_of_name(std::string_view isa_unit_name);

// A piecewise-constant busy count built from [start, end) intervals, with
// its running integral, so the busy instance-cycles inside any span cost a
// binary search. `instances` caps the count: the mean over instances is
// busy_cycles / (instances * span).
class BusyProfile {
 public:
  struct Interval {
    uint64_t start_cycle = 0;
    uint64_t end_cycle = 0;
  };
  BusyProfile() = default;
  BusyProfile(std::vector<Interval> intervals, uint64_t instances);

  // Instance-cycles busy in [begin, end).
  [[nodiscard]] uint64_t busy_cycles(uint64_t begin, uint64_t end) const;
  // Mean busy fraction over instances in [begin, end), 0 for an empty span.
  [[nodiscard]] double fraction(uint64_t begin, uint64_t end) const;
  [[nodiscard]] uint64_t instances() const { return instances_; }

 private:
  [[nodiscard]] uint64_t integral_to(uint64_t cycle) const;

  uint64_t instances_ = 1;
  std::vector<uint64_t> cycle_;     // segment starts, ascending
  std::vector<uint64_t> count_;     // busy count from cycle_[i] to cycle_[i+1]
  std::vector<uint64_t> integral_;  // instance-cycles before cycle_[i]
};

// One chip's busy intervals per unit, collected from a live run or from
// run data, turned into profiles once the run is over.
class ChipBusyIntervals {
 public:
  void add(BusyUnit unit, uint64_t start_cycle, uint64_t end_cycle);
  // Profiles in kBusyUnits order; the matrix unit has `mxu_count` instances.
  [[nodiscard]] std::vector<BusyProfile> profiles(uint64_t mxu_count) const;

 private:
  std::array<std::vector<BusyProfile::Interval>, kBusyUnitCount> intervals_;
};

}  // namespace snr::metrics
