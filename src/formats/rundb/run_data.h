// The run data of one replay, in memory: what the performance tracker
// builds from the event bus and what run.db stores (docs/formats/run-db.md).
// Flat vectors of plain records so the tracker appends without allocation
// churn and the writer binds columns in one pass.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snr::rundb {

struct InstructionRecord {
  uint64_t step = 0;             // global issue order of the replay
  uint32_t chip = 0;
  uint64_t chip_index = 0;       // position in the chip's recorded pc sequence
  uint64_t pc = 0;
  uint32_t op = 0;               // index into RunData::op_names
  std::string_view mnemonic;     // static text of the ISA table
  uint64_t issue_cycle = 0;
  uint64_t complete_cycle = 0;   // result available
  uint64_t stall_cycles = 0;
  std::string_view stall_reason; // static: "none", "data_hazard", ...
};

// [start_cycle, end_cycle) on one unit; back-to-back slices of the same
// chip and unit are merged, `instructions` counts what was merged.
struct UnitBusyRecord {
  uint32_t chip = 0;
  std::string unit;
  uint64_t start_cycle = 0;
  uint64_t end_cycle = 0;
  uint64_t first_step = 0;
  uint64_t instructions = 0;
};

struct DmaRecord {
  uint64_t dma_id = 0;
  uint32_t chip = 0;            // issuing chip
  uint64_t issue_step = 0;
  uint64_t pc = 0;
  uint32_t src_chip = 0;
  std::string src_space;        // "hbm", "vmem", "smem"
  uint64_t src_address = 0;     // the global address operand as issued
  uint32_t dst_chip = 0;
  std::string dst_space;
  uint64_t dst_address = 0;
  uint64_t bytes = 0;
  std::string link;
  uint32_t semaphore = 0;
  uint64_t issue_cycle = 0;
  uint64_t base_done_cycle = 0;
  uint64_t transfer_start_cycle = 0;
  uint64_t transfer_end_cycle = 0;
  bool waited = false;           // a sem.wait consumed its completion
  uint32_t wait_chip = 0;
  uint64_t wait_step = 0;
  uint64_t wait_start_cycle = 0;
  uint64_t wait_end_cycle = 0;
};

// Consecutive accesses of one kind to one VMEM page, run-length encoded:
// a run ends when the page is accessed the other way. Adjacent pages with
// identical runs (a vector store covers several pages at once) share a row.
struct VmemRunRecord {
  uint32_t chip = 0;
  uint64_t page = 0;       // first page of the row
  uint64_t last_page = 0;  // inclusive
  bool is_write = false;
  uint64_t first_cycle = 0;
  uint64_t last_cycle = 0;
  uint64_t accesses = 0;
};

struct SemaphoreRecord {
  uint64_t sequence = 0;  // publication order
  uint32_t chip = 0;      // owner
  uint32_t semaphore = 0;
  std::string op;         // "signal", "wait_start", "wait_end"
  uint64_t cycle = 0;
  int64_t amount = 0;
  uint32_t value_after = 0;
  uint32_t from_chip = 0;
};

// The consumer step read what the producer step wrote last, through
// resources [first, last] of one kind: registers x<first> or v<first>,
// VMEM pages first..last of `chip` (adjacent pages merged), or DMA <first>
// whose completion a WAIT consumed.
struct DependencyRecord {
  uint64_t producer_step = 0;
  uint64_t consumer_step = 0;
  std::string_view kind;  // static: "x", "v", "vmem", "dma"
  uint32_t chip = 0;
  uint64_t first = 0;
  uint64_t last = 0;
};

struct ChipSummary {
  uint32_t chip = 0;
  uint64_t instructions = 0;
  uint64_t first_cycle = 0;
  uint64_t last_cycle = 0;   // cycle after the last issue
  uint64_t stall_cycles = 0;
};

struct RunData {
  // Identity and configuration, stored in `meta` (key, value).
  std::vector<std::pair<std::string, std::string>> meta;
  std::string hw_config_yaml;
  uint64_t total_cycles = 0;
  std::vector<ChipSummary> chips;
  std::vector<std::string> op_names;  // [0] = "" (no symbol covers the pc)
  std::vector<InstructionRecord> instructions;
  std::vector<UnitBusyRecord> unit_busy;
  std::vector<DmaRecord> dmas;
  std::vector<VmemRunRecord> vmem_runs;
  std::vector<SemaphoreRecord> semaphores;
  std::vector<DependencyRecord> dependencies;
};

// A recording may hold a subset of the machine's chips (`snr record
// --chips 1,3`); the others exist in the replay (DMAs reach their memory)
// but run nothing, so per-chip figures and averages leave them out. Stored
// as meta `recorded_chips`, ascending chip numbers separated by spaces.
inline constexpr std::string_view kRecordedChipsKey = "recorded_chips";
void set_recorded_chips(RunData& data, const std::vector<uint32_t>& chips);
// The recorded chips, or nullopt when the key is absent (every chip).
// Throws snr::Error on a list that is not ascending chip numbers below
// `chip_count`.
std::optional<std::vector<uint32_t>> recorded_chips(const RunData& data, uint32_t chip_count);

}  // namespace snr::rundb
