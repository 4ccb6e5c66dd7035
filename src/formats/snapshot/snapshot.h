// The snapshot file: what the recorder saved of a window of execution
// (docs/formats/snapshot.md). Sections of protobuf messages, each zstd
// compressed and checksummed, behind a fixed header with a magic number and
// format version, so a damaged file is rejected with the section and byte
// offset at fault.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "formats/snapshot/snapshot.pb.h"
#include "isa/access.h"

namespace snr::snapshot {

constexpr char kMagic[8] = {'S', 'N', 'R', 'S', 'N', 'A', 'P', '\x1a'};
constexpr uint32_t kFormatVersion = 1;
// Bounds a reader enforces before allocating.
constexpr uint64_t kMaxSectionBytes = uint64_t{4} << 30;
constexpr uint32_t kMaxChipSections = 4096;
// Flat (ADDRESS_SPACE_FLAT) snapshots: the page size of `Chip.pages`; every
// address is below kFlatAddressLimit, the top of the largest RISC-V Linux
// user space (Sv57's lower half); a chip maps at most kMaxFlatPages pages
// (4 GiB) and holds at most kMaxSyscalls recorded system calls.
constexpr uint64_t kFlatPageBytes = 4096;
constexpr uint64_t kFlatAddressLimit = uint64_t{1} << 56;
constexpr uint64_t kMaxFlatPages = uint64_t{1} << 20;
constexpr uint64_t kMaxSyscalls = uint64_t{1} << 24;
constexpr uint64_t kMaxSyscallArgs = 6;

struct Snapshot {
  pb::Header header;
  std::vector<pb::Chip> chips;
};

// Serializes and compresses; deterministic for equal inputs.
std::string encode_snapshot(const Snapshot& snapshot, int zstd_level = 3);
// Parses and checks framing, checksums and message syntax; the error names
// the section, the byte offset and what was expected versus found.
Result<Snapshot> decode_snapshot(std::span<const uint8_t> bytes, std::string_view origin);
Result<Snapshot> read_snapshot_file(const std::string& path);
// Writes the same bytes as encode_snapshot() atomically to `path`, one
// section at a time, releasing each chip once it is serialized: peak memory
// is one chip's serialized and compressed copies instead of the whole file
// three times over (a window's memory can be hundreds of MB). Returns the
// file's size in bytes.
uint64_t write_snapshot_streaming(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level = 3);
void write_snapshot_file(const std::string& path, const Snapshot& snapshot);

// Semantic checks beyond syntax: ISA hash, chip ids, sequence lengths,
// code covering every recorded pc, register sizes. Returns every problem
// found (empty = valid).
std::vector<std::string> validate_snapshot(const Snapshot& snapshot);
// The checks of one saved memory region (non-empty, no wrap, address in the
// space it names; SPACE_FLAT below kFlatAddressLimit), appended to
// `problems` as "<where> memory region <i>: ...".
void check_memory_region(const std::string& where, int index, pb::MemorySpace space, uint64_t address,
                         uint64_t size_bytes, std::vector<std::string>& problems);
// The address-space checks of one saved region of `chip` beyond
// check_memory_region: flat snapshots hold SPACE_FLAT regions inside the
// chip's pages, NPU snapshots none. `what` names the region in messages.
void check_region_address_space(const pb::Header& header, const pb::Chip& chip, const std::string& what,
                                pb::MemorySpace space, uint64_t address, uint64_t size_bytes,
                                std::vector<std::string>& problems);
// True when [address, address + size_bytes) lies inside the chip's pages
// (sorted and disjoint, as validate_snapshot requires).
bool inside_pages(const pb::Chip& chip, uint64_t address, uint64_t size_bytes);

// Varint helpers of the pc and schedule encodings.
void append_varint(std::string& out, uint64_t value);
// Reads one varint at `offset` (advanced); false at the end or on overflow.
bool read_varint(std::string_view data, size_t& offset, uint64_t& value);
inline uint64_t zigzag(int64_t value) { return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63); }
inline int64_t unzigzag(uint64_t value) { return static_cast<int64_t>(value >> 1) ^ -static_cast<int64_t>(value & 1); }

// The recorded pc sequence of a chip, decoded; throws snr::Error naming the
// chip and the delta index when the encoding is damaged.
std::vector<uint64_t> decode_pcs(const pb::Chip& chip);
std::string encode_pc_deltas(std::span<const uint64_t> pcs);
// (chip, run length) pairs of the header's schedule.
std::vector<std::pair<uint32_t, uint64_t>> decode_schedule(const pb::Header& header);

// The simulator's name for a saved state kind and back; to_isa_state_kind
// throws snr::Error on a kind this reader does not know.
isa::StateKind to_isa_state_kind(pb::StateKind kind);
pb::StateKind to_pb_state_kind(isa::StateKind kind);

// Hash of written memory, shared by the recorder and re-execution.
uint64_t hash_region(uint64_t hash, uint64_t address, std::string_view bytes);

}  // namespace snr::snapshot
