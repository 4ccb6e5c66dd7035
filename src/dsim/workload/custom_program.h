// Reads the Chakra traces of custom collectives (ASTRA-sim's
// *-implementation-custom and per-node-custom-implementation:
// `<prefix>.<rank>.et`, one per rank position) into the system layer's
// CustomProgram form.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "dsim/config/system_config.h"
#include "dsim/system/custom_collective.h"
#include "formats/chakra/et_def.pb.h"

namespace snr::dsim {

// One rank's program. Throws snr::Error naming the file and node for node
// kinds other than COMM_SEND / COMM_RECV / COMP, missing peers or sizes,
// tags outside [0, 2^24), unknown or cyclic dependencies.
CustomProgram load_custom_program(const std::filesystem::path& path);
// The same from nodes already read; `source` names them in errors and
// `skipped_records` (records the reader could not parse) must be 0.
CustomProgram parse_custom_program(const std::vector<ChakraProtoMsg::Node>& nodes, uint64_t skipped_records,
                                   std::string source);

// Programs for rank positions 0, 1, ... up to npus_count or the first
// missing file (rank 0 must exist).
CustomPrograms load_custom_programs(const std::filesystem::path& prefix, uint64_t npus_count);
// Every custom collective the configuration names, each prefix read once.
CustomCollectives load_custom_collectives(const SystemConfig& system, uint64_t npus_count);

}  // namespace snr::dsim
