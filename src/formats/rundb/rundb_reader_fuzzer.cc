// Fuzzes the run.db reader and the loader the analyzer uses (its range and
// consistency checks): any byte string, written to a scratch file, must be
// rejected with snr::Error or read completely, never crash.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "common/error.h"
#include "formats/rundb/load.h"
#include "formats/rundb/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("snr_rundb_fuzz_" + std::to_string(getpid()) + ".db");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    snr::rundb::RunDbReader reader(path.string());
    (void)snr::rundb::dump_tables(reader, {});
  } catch (const snr::Error&) {
  }
  try {
    (void)snr::rundb::load_run_data(path.string());
  } catch (const snr::Error&) {
  }
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  return 0;
}
