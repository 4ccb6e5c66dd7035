// Writes run data to a run.db file, all or nothing: the database is built
// in a temporary file beside the target (bulk-load settings, one
// transaction) and renamed into place only after the final commit.
#pragma once

#include <string>

#include "formats/rundb/run_data.h"

namespace snr::rundb {

void write_run_db(const std::string& path, const RunData& data);

}  // namespace snr::rundb
