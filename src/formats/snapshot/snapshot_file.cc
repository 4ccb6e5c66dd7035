// For ZSTD_c_stableInBuffer (write_section).
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <memory>

#include "common/error.h"
#include "common/file_io.h"
#include "common/hash.h"
#include "formats/snapshot/sections.h"
#include "formats/snapshot/snapshot.h"

namespace snr::snapshot {
namespace {

constexpr uint64_t kFileHeaderBytes = 32;
constexpr uint64_t kSectionHeaderBytes = 32;
constexpr uint32_t kSectionHeader = 1;
constexpr uint32_t kSectionChip = 2;

void put_u32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}
void put_u64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}
uint64_t get_le(std::span<const uint8_t> bytes, uint64_t offset, int size) {
  uint64_t value = 0;
  for (int i = 0; i < size; ++i) value |= uint64_t{bytes[offset + static_cast<uint64_t>(i)]} << (8 * i);
  return value;
}

uint64_t checksum(std::string_view data) { return fnv1a64(data); }

// One section: its 32-byte header into `head`, the compressed payload into
// `compressed` (kept apart so a streaming writer need not join them).
void make_section(uint32_t kind, const std::string& raw, int level, std::string& head, std::string& compressed) {
  compressed.resize(ZSTD_compressBound(raw.size()));
  const size_t n = ZSTD_compress(compressed.data(), compressed.size(), raw.data(), raw.size(), level);
  if (ZSTD_isError(n)) throw Error(fmt::format("zstd compression failed: {}", ZSTD_getErrorName(n)));
  compressed.resize(n);
  head.clear();
  put_u32(head, kind);
  put_u32(head, 0);
  put_u64(head, compressed.size());
  put_u64(head, raw.size());
  put_u64(head, checksum(compressed));
}

void append_section(std::string& out, uint32_t kind, const std::string& raw, int level) {
  std::string head, compressed;
  make_section(kind, raw, level, head, compressed);
  out += head;
  out += compressed;
}

// The fixed file header, given the whole file's size.
std::string make_file_header(size_t sections, uint64_t total_bytes) {
  std::string out(kMagic, sizeof(kMagic));
  put_u32(out, kFormatVersion);
  put_u32(out, static_cast<uint32_t>(sections));
  put_u64(out, total_bytes);
  put_u64(out, checksum(out));
  return out;
}

std::string serialize(const google::protobuf::MessageLite& message) {
  std::string out;
  // Deterministic: map ordering is fixed and unknown fields are absent.
  if (!message.SerializeToString(&out)) throw Error("snapshot message could not be serialized");
  return out;
}

}  // namespace

void append_varint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

bool read_varint(std::string_view data, size_t& offset, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (offset >= data.size()) return false;
    const uint8_t byte = static_cast<uint8_t>(data[offset++]);
    value |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

std::string encode_pc_deltas(std::span<const uint64_t> pcs) {
  std::string out;
  for (size_t i = 1; i < pcs.size(); ++i) {
    append_varint(out, zigzag(static_cast<int64_t>(pcs[i] - pcs[i - 1] - 4)));
  }
  return out;
}

std::vector<uint64_t> decode_pcs(const pb::Chip& chip) {
  std::vector<uint64_t> pcs;
  if (chip.instruction_count() == 0) return pcs;
  if (chip.instruction_count() > chip.pc_deltas().size() + 1) {
    throw Error(fmt::format("chip {}: {} instructions need at least {} pc delta bytes, found {}", chip.chip(),
                            chip.instruction_count(), chip.instruction_count() - 1, chip.pc_deltas().size()));
  }
  pcs.reserve(chip.instruction_count());
  pcs.push_back(chip.first_pc());
  size_t offset = 0;
  for (uint64_t i = 1; i < chip.instruction_count(); ++i) {
    uint64_t delta = 0;
    if (!read_varint(chip.pc_deltas(), offset, delta)) {
      throw Error(fmt::format("chip {}: pc delta {} at byte {} of pc_deltas is truncated or over 64 bits",
                              chip.chip(), i, offset));
    }
    pcs.push_back(pcs.back() + 4 + static_cast<uint64_t>(unzigzag(delta)));
  }
  if (offset != chip.pc_deltas().size()) {
    throw Error(fmt::format("chip {}: {} bytes of pc_deltas follow the last of {} instructions", chip.chip(),
                            chip.pc_deltas().size() - offset, chip.instruction_count()));
  }
  return pcs;
}

std::vector<std::pair<uint32_t, uint64_t>> decode_schedule(const pb::Header& header) {
  std::vector<std::pair<uint32_t, uint64_t>> runs;
  size_t offset = 0;
  while (offset < header.schedule().size()) {
    uint64_t chip = 0, length = 0;
    const size_t at = offset;
    if (!read_varint(header.schedule(), offset, chip) || !read_varint(header.schedule(), offset, length) ||
        chip > 0xFFFFFFFFu || length == 0) {
      throw Error(fmt::format("schedule entry at byte {} is truncated or invalid", at));
    }
    runs.emplace_back(static_cast<uint32_t>(chip), length);
  }
  return runs;
}

isa::StateKind to_isa_state_kind(pb::StateKind kind) {
  switch (kind) {
    case pb::STATE_X: return isa::StateKind::kX;
    case pb::STATE_V: return isa::StateKind::kV;
    case pb::STATE_CSR: return isa::StateKind::kCsr;
    case pb::STATE_SEMAPHORE: return isa::StateKind::kSemaphore;
    case pb::STATE_MXU_WEIGHTS: return isa::StateKind::kMxuWeights;
    case pb::STATE_MXU_ACCUMULATOR: return isa::StateKind::kMxuAccumulator;
    case pb::STATE_PC: return isa::StateKind::kPc;
    default: break;
  }
  throw Error(fmt::format("unknown state kind {}", static_cast<int>(kind)));
}

pb::StateKind to_pb_state_kind(isa::StateKind kind) {
  switch (kind) {
    case isa::StateKind::kX: return pb::STATE_X;
    case isa::StateKind::kV: return pb::STATE_V;
    case isa::StateKind::kCsr: return pb::STATE_CSR;
    case isa::StateKind::kSemaphore: return pb::STATE_SEMAPHORE;
    case isa::StateKind::kMxuWeights: return pb::STATE_MXU_WEIGHTS;
    case isa::StateKind::kMxuAccumulator: return pb::STATE_MXU_ACCUMULATOR;
    case isa::StateKind::kPc: return pb::STATE_PC;
  }
  return pb::STATE_X;
}

uint64_t hash_region(uint64_t hash, uint64_t address, std::string_view bytes) {
  hash = fnv1a64_u64(address, hash);
  hash = fnv1a64_u64(bytes.size(), hash);
  return fnv1a64(bytes, hash);
}

static pb::Header file_header_message(const Snapshot& snapshot) {
  pb::Header header = snapshot.header;
  header.set_format_version(kFormatVersion);
  header.set_chip_sections(static_cast<uint32_t>(snapshot.chips.size()));
  return header;
}

std::string encode_snapshot(const Snapshot& snapshot, int zstd_level) {
  std::string body;
  append_section(body, kSectionHeader, serialize(file_header_message(snapshot)), zstd_level);
  for (const pb::Chip& chip : snapshot.chips) append_section(body, kSectionChip, serialize(chip), zstd_level);
  return make_file_header(1 + snapshot.chips.size(), kFileHeaderBytes + body.size()) + body;
}

uint64_t write_section(AtomicFileWriter& writer, uint32_t kind, std::string_view raw, int zstd_level) {
  struct FreeCctx {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  const std::unique_ptr<ZSTD_CCtx, FreeCctx> cctx(ZSTD_createCCtx());
  if (!cctx) throw Error("zstd: cannot create a compression context");
  auto check = [](size_t result, const char* what) {
    if (ZSTD_isError(result)) throw Error(fmt::format("zstd {} failed: {}", what, ZSTD_getErrorName(result)));
    return result;
  };
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, zstd_level), "level");
  // With the whole input in place the streamed frame is ZSTD_compress's,
  // byte for byte; from a moving input buffer its last blocks differ.
  check(ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_stableInBuffer, 1), "stable input");
  check(ZSTD_CCtx_setPledgedSrcSize(cctx.get(), raw.size()), "size");
  std::ostream& out = writer.stream();
  const std::streampos head_at = out.tellp();
  writer.write(std::string(kSectionHeaderBytes, '\0'));
  constexpr size_t kPieceBytes = size_t{4} << 20;
  const std::unique_ptr<char[]> piece(new char[kPieceBytes]);
  ZSTD_inBuffer in{raw.data(), raw.size(), 0};
  uint64_t compressed_bytes = 0, sum = kFnvOffsetBasis;
  for (;;) {
    ZSTD_outBuffer produced{piece.get(), kPieceBytes, 0};
    const size_t left = check(ZSTD_compressStream2(cctx.get(), &produced, &in, ZSTD_e_end), "compression");
    const std::string_view bytes(piece.get(), produced.pos);
    sum = fnv1a64(bytes, sum);
    writer.write(bytes);
    compressed_bytes += bytes.size();
    if (left == 0) break;
  }
  std::string head;
  put_u32(head, kind);
  put_u32(head, 0);
  put_u64(head, compressed_bytes);
  put_u64(head, raw.size());
  put_u64(head, sum);
  out.seekp(head_at);
  writer.write(head);
  out.seekp(0, std::ios::end);
  return kSectionHeaderBytes + compressed_bytes;
}

std::string file_header(size_t sections, uint64_t total_bytes) { return make_file_header(sections, total_bytes); }

std::string serialize_header_section(const Snapshot& snapshot) { return serialize(file_header_message(snapshot)); }

std::string serialize_chip_section(const pb::Chip& chip) { return serialize(chip); }

namespace {

// The file around its sections: a placeholder for the file header (it holds
// the total size, known only at the end), each section as `next(i)` gives
// its serialized message, then the real header.
template <typename NextSection>
uint64_t write_file(const std::filesystem::path& path, size_t sections, int zstd_level, NextSection&& next) {
  AtomicFileWriter writer(path);
  writer.write(std::string(kFileHeaderBytes, '\0'));
  uint64_t total_bytes = kFileHeaderBytes;
  for (size_t i = 0; i < sections; ++i) {
    total_bytes += write_section(writer, i == 0 ? kSectionHeader : kSectionChip, next(i), zstd_level);
  }
  writer.stream().seekp(0);
  writer.write(file_header(sections, total_bytes));
  writer.commit();
  return total_bytes;
}

}  // namespace

uint64_t write_sections(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level) {
  std::string raw;
  return write_file(path, 1 + snapshot.chips.size(), zstd_level, [&](size_t i) {
    if (i == 0) {
      raw = serialize_header_section(snapshot);
    } else {
      raw = serialize(snapshot.chips[i - 1]);
      snapshot.chips[i - 1] = pb::Chip();  // its memory is in `raw` now; keep one copy alive, not two
    }
    return std::string_view(raw);
  });
}

uint64_t write_serialized_sections(const std::filesystem::path& path, std::span<const std::string_view> sections,
                                   int zstd_level) {
  if (sections.empty()) throw Error(fmt::format("{}: a snapshot needs its header section", path.string()));
  return write_file(path, sections.size(), zstd_level, [&](size_t i) { return sections[i]; });
}

uint64_t write_snapshot_streaming(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level) {
  return write_sections(path, std::move(snapshot), zstd_level);
}

namespace {

// FNV-1a of `data` from the offset basis (the section checksum), and the
// running hash of the whole file continued over the same bytes: two
// independent multiply chains in one pass cost about as much as one.
uint64_t checksum_and_continue(std::string_view data, uint64_t& file_hash) {
  uint64_t sum = kFnvOffsetBasis, running = file_hash;
  for (char c : data) {
    const auto byte = static_cast<uint8_t>(c);
    sum = (sum ^ byte) * kFnvPrime;
    running = (running ^ byte) * kFnvPrime;
  }
  file_hash = running;
  return sum;
}

}  // namespace

Result<uint64_t> walk_sections(std::span<const uint8_t> bytes, std::string_view origin, const SectionFn& on_section) {
  auto fail = [&](const std::string& what) { return Error(fmt::format("{}: {}", origin, what)); };
  if (bytes.size() < kFileHeaderBytes) {
    return fail(fmt::format("file header: truncated: expected at least {} bytes, found {}", kFileHeaderBytes,
                            bytes.size()));
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return fail("file header at byte 0: bad magic: expected \"SNRSNAP\\x1a\", this is not an snr snapshot");
  }
  const uint32_t version = static_cast<uint32_t>(get_le(bytes, 8, 4));
  if (version != kFormatVersion) {
    return fail(fmt::format("file header at byte 8: format version: expected {}, found {}", kFormatVersion, version));
  }
  const std::string_view header_view(reinterpret_cast<const char*>(bytes.data()), 24);
  const uint64_t header_sum = get_le(bytes, 24, 8);
  if (header_sum != checksum(header_view)) {
    return fail(fmt::format("file header at byte 24: checksum: expected {:#018x}, found {:#018x}",
                            checksum(header_view), header_sum));
  }
  const uint32_t section_count = static_cast<uint32_t>(get_le(bytes, 12, 4));
  const uint64_t total = get_le(bytes, 16, 8);
  if (total != bytes.size()) {
    return fail(fmt::format("file header at byte 16: file size: expected {} bytes (as recorded), found {}{}", total,
                            bytes.size(), total > bytes.size() ? " (truncated)" : " (trailing bytes)"));
  }
  if (section_count == 0 || section_count > kMaxChipSections + 1) {
    return fail(fmt::format("file header at byte 12: section count: expected 1..{}, found {}", kMaxChipSections + 1,
                            section_count));
  }
  uint64_t identity = fnv1a64(std::string_view(reinterpret_cast<const char*>(bytes.data()), kFileHeaderBytes));
  uint64_t offset = kFileHeaderBytes;
  for (uint32_t s = 0; s < section_count; ++s) {
    const std::string name = s == 0 ? "section 0 (header)" : fmt::format("section {} (chip record {})", s, s - 1);
    if (bytes.size() - offset < kSectionHeaderBytes) {
      return fail(fmt::format("{} at byte {}: truncated section header: expected {} bytes, found {}", name, offset,
                              kSectionHeaderBytes, bytes.size() - offset));
    }
    identity = fnv1a64(std::string_view(reinterpret_cast<const char*>(bytes.data() + offset), kSectionHeaderBytes),
                       identity);
    const uint32_t kind = static_cast<uint32_t>(get_le(bytes, offset, 4));
    const uint32_t expected_kind = s == 0 ? kSectionHeader : kSectionChip;
    if (kind != expected_kind) {
      return fail(fmt::format("{} at byte {}: section kind: expected {}, found {}", name, offset, expected_kind, kind));
    }
    const uint64_t compressed_bytes = get_le(bytes, offset + 8, 8);
    const uint64_t raw_bytes = get_le(bytes, offset + 16, 8);
    const uint64_t stored_sum = get_le(bytes, offset + 24, 8);
    const uint64_t data_offset = offset + kSectionHeaderBytes;
    if (compressed_bytes > bytes.size() - data_offset) {
      return fail(fmt::format("{} at byte {}: compressed size: expected at most the {} remaining bytes, found {}",
                              name, offset + 8, bytes.size() - data_offset, compressed_bytes));
    }
    if (raw_bytes > kMaxSectionBytes) {
      return fail(fmt::format("{} at byte {}: uncompressed size {} exceeds the {} limit", name, offset + 16,
                              raw_bytes, kMaxSectionBytes));
    }
    const std::string_view data(reinterpret_cast<const char*>(bytes.data() + data_offset), compressed_bytes);
    if (const uint64_t sum = checksum_and_continue(data, identity); sum != stored_sum) {
      return fail(fmt::format("{} at byte {}: checksum of bytes {}..{}: expected {:#018x}, found {:#018x}", name,
                              offset + 24, data_offset, data_offset + compressed_bytes, stored_sum, sum));
    }
    const unsigned long long frame_size = ZSTD_getFrameContentSize(data.data(), data.size());
    if (frame_size != raw_bytes) {
      return fail(fmt::format("{} at byte {}: zstd frame content size: expected {}, found {}", name, data_offset,
                              raw_bytes, frame_size == ZSTD_CONTENTSIZE_ERROR ? std::string("no valid frame")
                                                                             : std::to_string(frame_size)));
    }
    if (std::string problem = on_section(s, data, raw_bytes); !problem.empty()) {
      return fail(fmt::format("{} at byte {}: {}", name, data_offset, problem));
    }
    offset = data_offset + compressed_bytes;
  }
  if (offset != bytes.size()) {
    return fail(fmt::format("byte {}: {} bytes after the last section", offset, bytes.size() - offset));
  }
  return identity;
}

std::string decompress_into(std::string_view data, char* out, uint64_t raw_bytes) {
  const size_t n = ZSTD_decompress(out, raw_bytes, data.data(), data.size());
  if (ZSTD_isError(n) || n != raw_bytes) {
    return fmt::format("zstd: {}", ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output");
  }
  return "";
}

Result<Snapshot> decode_snapshot(std::span<const uint8_t> bytes, std::string_view origin) {
  Snapshot snapshot;
  std::string raw;
  Result<uint64_t> walked = walk_sections(
      bytes, origin, [&](uint32_t s, std::string_view data, uint64_t raw_bytes) {
        raw.resize(raw_bytes);
        if (std::string problem = decompress_into(data, raw.data(), raw_bytes); !problem.empty()) return problem;
        const bool parsed = s == 0 ? snapshot.header.ParseFromString(raw) : snapshot.chips.emplace_back().ParseFromString(raw);
        return parsed ? std::string() : std::string("protobuf message does not parse");
      });
  if (!walked.ok()) return walked.error();
  const uint32_t sections = static_cast<uint32_t>(snapshot.chips.size()) + 1;
  if (snapshot.header.chip_sections() != sections - 1) {
    return Error(fmt::format("{}: section 0 (header): chip_sections: expected {} (sections in the file), found {}",
                             origin, sections - 1, snapshot.header.chip_sections()));
  }
  return snapshot;
}

Result<Snapshot> read_snapshot_file(const std::string& path) {
  std::vector<uint8_t> bytes;
  try {
    bytes = read_file_bytes(path);
  } catch (const Error& e) {
    return e;
  }
  return decode_snapshot(bytes, path);
}

void write_snapshot_file(const std::string& path, const Snapshot& snapshot) {
  write_file_atomic(path, encode_snapshot(snapshot));
}

}  // namespace snr::snapshot
