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
struct LoadOptions {
  // The dependency table is the largest; readers that only need the op and
  // DMA timeline (the Chakra export) skip it.
  bool dependencies = true;
};
RunData load_run_data(const std::string& path, const LoadOptions& options = {});

}  // namespace snr::rundb
