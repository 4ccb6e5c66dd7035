// Loads a whole run.db back into RunData (the analyzer's input), through
// RunDbReader's validation. Text columns that RunData keeps as static
// string_views (mnemonic, stall reason, dependency kind) are mapped to the
// ISA table's text or a process-wide intern pool, so the result owns no
// dangling views. Tables and columns a newer writer adds are ignored;
// dependency kinds beyond x / v / vmem / dma (hbm, smem) are kept as given.
#pragma once

#include <string>

#include "formats/rundb/run_data.h"

namespace snr::rundb {

// Throws snr::Error naming the file on an unreadable or invalid database
// and on rows that break the schema's invariants (an instruction naming a
// step twice, a DMA id out of order).
// Readers that need only part of a run (the Chakra export needs the op and
// DMA timeline) skip the rest: on the 600k-instruction decode window the
// full load costs about twice the time and memory of the export's part.
struct LoadOptions {
  bool dependencies = true;  // the largest table
  // Instruction columns beyond step, chip, op, mnemonic and issue cycle:
  // chip_index, pc, complete cycle and the stall split. Left 0 / "" when off.
  bool instruction_details = true;
  bool unit_busy = true;
  bool vmem_runs = true;
  bool semaphores = true;
};
RunData load_run_data(const std::string& path, const LoadOptions& options = {});

// The checks load_run_data makes, for readers that query the database
// directly (snr diff, the Perfetto export): throws snr::Error as it does.
// Reads the instructions, unit intervals and DMAs once and returns them
// (without dependencies, VMEM runs and semaphores).
RunData check_run_db(const std::string& path);

}  // namespace snr::rundb
