// The container layer shared by the snapshot decoders (snapshot_file.cc,
// shared_snapshot.cc): framing, checksums and zstd, without the messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "common/file_io.h"
#include "common/result.h"
#include "formats/snapshot/snapshot.h"

namespace snr::snapshot {

// Called per section with its index (0 = header), compressed bytes and
// uncompressed size; returns "" or what is wrong with its payload.
using SectionFn = std::function<std::string(uint32_t index, std::string_view compressed, uint64_t raw_bytes)>;

// Checks the file header and each section's framing, size limits, checksum
// and zstd frame size before calling `on_section`; errors name the origin,
// section and byte offset. Returns fnv1a64 of the whole file (the
// snapshot's identity), computed in the same pass as the checksums.
Result<uint64_t> walk_sections(std::span<const uint8_t> bytes, std::string_view origin, const SectionFn& on_section);

// Appends one section to `writer`: its header, then `raw` compressed with
// zstd and written a few MiB at a time (the header's compressed size and
// checksum are filled in last), so no compressed copy of a section is held.
// The bytes are encode_snapshot's for the same section. Returns the bytes written.
uint64_t write_section(AtomicFileWriter& writer, uint32_t kind, std::string_view raw, int zstd_level);
// The fixed 32-byte file header, given the section count and the file's size.
std::string file_header(size_t sections, uint64_t total_bytes);

// Writes encode_snapshot(snapshot)'s bytes atomically to `path` a section at
// a time, each chip message released once serialized. Returns the file size.
uint64_t write_sections(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level);

// The serialized messages of the header section for `snapshot` and of a chip section.
std::string serialize_header_section(const Snapshot& snapshot);
std::string serialize_chip_section(const pb::Chip& chip);
// Writes a file of sections already serialized: the header's first, then
// one per chip (the bytes write_sections would write for the snapshot they
// came from). Returns the file size.
uint64_t write_serialized_sections(const std::filesystem::path& path, std::span<const std::string_view> sections,
                                   int zstd_level);

// Decompresses one section into `out` (raw_bytes long); "" or the problem.
std::string decompress_into(std::string_view compressed, char* out, uint64_t raw_bytes);

}  // namespace snr::snapshot
