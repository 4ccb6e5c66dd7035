// The compiled-model directory (docs/formats/compiled-model.md):
//
//   manifest.json        chips, hardware, files, ops (PC ranges, FLOPs,
//                        bytes), HBM tensors (generator + layout) and regions
//   chip<N>.elf          one program per chip, a symbol per op
//   pc_map.tsv           pc_begin  pc_end  op  kind  (the "HLO" of each pc)
//   hbm.chip<N>.bin.zst  zstd-compressed explicit HBM regions of chip N
//
// Everything is written to temporary names and renamed into place, so a
// failed compile leaves no partial directory contents behind.
#pragma once

#include <filesystem>
#include <string>

#include "compiler/compiler.h"
#include "compiler/model_image.h"

namespace snr::compiler {

constexpr int kManifestVersion = 1;

void write_compiled_model(const CompiledModel& model, const std::filesystem::path& directory);

// Reads and validates a directory written by write_compiled_model; errors
// name the file and the field.
ModelImage read_compiled_model(const std::filesystem::path& directory);

// True when `directory` holds a manifest.json of a compiled model.
bool is_compiled_model_directory(const std::filesystem::path& directory);

}  // namespace snr::compiler
