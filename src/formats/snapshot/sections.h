// The container layer shared by the snapshot decoders (snapshot_file.cc,
// shared_snapshot.cc): framing, checksums and zstd, without the messages.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace snr::snapshot {

// Called per section with its index (0 = header), compressed bytes and
// uncompressed size; returns "" or what is wrong with its payload.
using SectionFn = std::function<std::string(uint32_t index, std::string_view compressed, uint64_t raw_bytes)>;

// Checks the file header and each section's framing, size limits, checksum
// and zstd frame size before calling `on_section`; errors name the origin,
// section and byte offset. Returns fnv1a64 of the whole file (the
// snapshot's identity), computed in the same pass as the checksums.
Result<uint64_t> walk_sections(std::span<const uint8_t> bytes, std::string_view origin, const SectionFn& on_section);

// Decompresses one section into `out` (raw_bytes long); "" or the problem.
std::string decompress_into(std::string_view compressed, char* out, uint64_t raw_bytes);

}  // namespace snr::snapshot
