// The run.db schema (docs/formats/run-db.md): one version number, the DDL
// that creates it, and the tables a reader requires. Bump kSchemaVersion on
// any change a reader could notice.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace snr::rundb {

constexpr int64_t kSchemaVersion = 2;
// Stored in meta.format so a .db file of another tool is named as such.
constexpr std::string_view kFormatName = "snr-run-db";

// The tables; then, once the rows are in (building an index over sorted
// input is cheaper than maintaining it per insert), indexes and views. Both
// run in the writer's one transaction.
std::string_view schema_tables_ddl();
std::string_view schema_indexes_ddl();

constexpr std::array<std::string_view, 9> kRequiredTables = {
    "meta", "chips", "instructions", "unit_busy", "dmas", "vmem_runs", "semaphore_events", "dependencies", "hw_config"};

}  // namespace snr::rundb
