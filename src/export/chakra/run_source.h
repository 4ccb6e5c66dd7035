// Where an export's run data comes from: a run.db written by `snr replay`
// (only the tables the export needs are read, through RunDbReader's
// schema check), or a compiled model run here in timing mode with the
// performance tracker listening (`snr run DIR --chakra`). Both give the
// run data and the provenance that goes into the trace's GlobalMetadata.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/rundb/run_data.h"

namespace snr::exporter {

struct ExportSource {
  rundb::RunData data;  // meta, chips, op_names, instructions, dmas (other tables empty)
  std::vector<std::pair<std::string, std::string>> provenance;
};

// Throws snr::Error naming the file for anything RunDbReader refuses (not
// SQLite, another format, another schema version, a missing table).
ExportSource load_run_db_for_export(const std::string& path);

// Runs every chip of a compiled-model directory (with hardware `key=value`
// overrides) and records its run data; throws when a chip faults, exits
// non-zero or the run exceeds max_cycles.
ExportSource run_compiled_model_for_export(const std::string& directory, const std::vector<std::string>& overrides,
                                           uint64_t max_cycles);

}  // namespace snr::exporter
