#include "formats/snapshot/shared_snapshot.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <memory>

#include "common/error.h"
#include "common/hash.h"
#include "formats/snapshot/sections.h"
#include "formats/snapshot/snapshot_writer.h"

namespace snr::snapshot {
namespace {

constexpr uint32_t kChipMemoryField = 4;  // Chip.memory (snapshot.proto)

// Decompressed (or, when just written, serialized) chip sections; regions view into them.
struct SectionBuffers {
  std::vector<std::unique_ptr<char[]>> buffers;
  std::vector<std::unique_ptr<const std::string>> serialized;
};

// The protobuf wire format, just enough to walk fields.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  [[nodiscard]] bool done() const { return offset_ >= data_.size(); }
  [[nodiscard]] size_t offset() const { return offset_; }

  bool varint(uint64_t& value) { return read_varint(data_, offset_, value); }
  // Skips the payload of a field with wire type `wire`; a length-delimited
  // payload is returned in `payload`.
  bool skip(uint64_t wire, std::string_view& payload) {
    uint64_t length = 0;
    switch (wire) {
      case 0: return varint(length);
      case 1: length = 8; break;
      case 5: length = 4; break;
      case 2:
        if (!varint(length)) return false;
        if (length > data_.size() - offset_) return false;
        payload = data_.substr(offset_, length);
        break;
      default: return false;  // groups are not used by snapshot.proto
    }
    if (length > data_.size() - offset_) return false;
    offset_ += length;
    return true;
  }

 private:
  std::string_view data_;
  size_t offset_ = 0;
};

std::string parse_region(std::string_view message, SharedRegion& region) {
  WireReader reader(message);
  while (!reader.done()) {
    uint64_t tag = 0, value = 0;
    if (!reader.varint(tag)) return "memory region: truncated field tag";
    const uint64_t field = tag >> 3, wire = tag & 7;
    if ((field == 1 || field == 2) && wire == 0) {
      if (!reader.varint(value)) return "memory region: truncated varint";
      if (field == 1) {
        region.space = static_cast<pb::MemorySpace>(static_cast<int>(value));
      } else {
        region.address = value;
      }
      continue;
    }
    std::string_view payload;
    if (!reader.skip(wire, payload)) return "memory region: truncated or invalid field";
    if (field == 3 && wire == 2) region.data = payload;
  }
  return "";
}

// Splits a Chip message: its memory regions become views, every other
// field is copied to `rest` in order (protobuf merges concatenated fields,
// so parsing `rest` gives the Chip without its memory).
std::string split_chip(std::string_view raw, std::string& rest, std::vector<SharedRegion>& regions) {
  WireReader reader(raw);
  while (!reader.done()) {
    const size_t start = reader.offset();
    uint64_t tag = 0;
    if (!reader.varint(tag)) return "chip record: truncated field tag";
    std::string_view payload;
    if (!reader.skip(tag & 7, payload)) return fmt::format("chip record: field {} is truncated or invalid", tag >> 3);
    if ((tag >> 3) == kChipMemoryField && (tag & 7) == 2) {
      SharedRegion& region = regions.emplace_back();
      if (std::string problem = parse_region(payload, region); !problem.empty()) return problem;
    } else {
      rest.append(raw.substr(start, reader.offset() - start));
    }
  }
  return "";
}

// A read-only mapping of a whole file, unmapped when the last user is gone.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
      const int err = errno;
      ::close(fd);
      throw Error(fmt::format("{}: cannot stat: {}", path, std::strerror(err)));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      // Populated up front: one pass of faults instead of one per page.
      void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (mapped == MAP_FAILED) {
        const int err = errno;
        ::close(fd);
        throw Error(fmt::format("{}: cannot map: {}", path, std::strerror(err)));
      }
      data_ = static_cast<const uint8_t*>(mapped);
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  [[nodiscard]] std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace

Result<SharedSnapshot> decode_snapshot_shared(std::span<const uint8_t> bytes, std::string_view origin) {
  SharedSnapshot out;
  auto storage = std::make_shared<SectionBuffers>();
  std::string header_raw, rest;
  Result<uint64_t> walked = walk_sections(bytes, origin, [&](uint32_t s, std::string_view data, uint64_t raw_bytes) {
    if (s == 0) {
      header_raw.resize(raw_bytes);
      if (std::string problem = decompress_into(data, header_raw.data(), raw_bytes); !problem.empty()) return problem;
      return out.snapshot.header.ParseFromString(header_raw) ? std::string() : "protobuf message does not parse";
    }
    // Not zero-filled: decompression writes every byte.
    std::unique_ptr<char[]>& buffer = storage->buffers.emplace_back(new char[raw_bytes]);
    if (std::string problem = decompress_into(data, buffer.get(), raw_bytes); !problem.empty()) return problem;
    rest.clear();
    std::vector<SharedRegion>& regions = out.memory.emplace_back();
    if (std::string problem = split_chip(std::string_view(buffer.get(), raw_bytes), rest, regions); !problem.empty()) {
      return "protobuf message does not parse: " + problem;
    }
    return out.snapshot.chips.emplace_back().ParseFromString(rest) ? std::string() : "protobuf message does not parse";
  });
  if (!walked.ok()) return walked.error();
  if (out.snapshot.header.chip_sections() != out.snapshot.chips.size()) {
    return Error(fmt::format("{}: section 0 (header): chip_sections: expected {} (sections in the file), found {}",
                             origin, out.snapshot.chips.size(), out.snapshot.header.chip_sections()));
  }
  out.identity_hash = walked.value();
  out.storage = std::move(storage);
  return out;
}

Result<SharedSnapshot> read_snapshot_shared(const std::string& path) {
  try {
    const MappedFile file(path);
    return decode_snapshot_shared(file.bytes(), path);
  } catch (const Error& e) {
    return e;
  }
}

SerializedSnapshot serialize_snapshot_shared(Snapshot&& snapshot) {
  SerializedSnapshot out;
  auto storage = std::make_shared<SectionBuffers>();
  out.header_section = serialize_header_section(snapshot);
  // Parsed from the serialized bytes, as decode_snapshot_shared parses the
  // decompressed ones, so both give the same messages.
  if (!out.shared.snapshot.header.ParseFromString(out.header_section)) throw Error("snapshot header does not parse back");
  std::string rest;
  for (size_t c = 0; c < snapshot.chips.size(); ++c) {
    auto raw = std::make_unique<const std::string>(serialize_chip_section(snapshot.chips[c]));
    snapshot.chips[c] = pb::Chip();  // its memory is in `raw` now; keep one copy alive, not two
    const std::string& kept = *storage->serialized.emplace_back(std::move(raw));
    out.chip_sections.push_back(kept);
    rest.clear();
    if (std::string problem = split_chip(kept, rest, out.shared.memory.emplace_back()); !problem.empty()) {
      throw Error(fmt::format("chip section {} does not parse back: {}", c + 1, problem));
    }
    if (!out.shared.snapshot.chips.emplace_back().ParseFromString(rest)) {
      throw Error(fmt::format("chip section {} does not parse back", c + 1));
    }
  }
  out.shared.storage = std::move(storage);
  return out;
}

uint64_t write_serialized_snapshot(const std::filesystem::path& path, const SerializedSnapshot& serialized,
                                   int zstd_level) {
  std::vector<std::string_view> sections{serialized.header_section};
  sections.insert(sections.end(), serialized.chip_sections.begin(), serialized.chip_sections.end());
  return write_serialized_sections(path, sections, zstd_level);
}

WrittenSnapshot write_snapshot_shared(const std::filesystem::path& path, Snapshot&& snapshot, int zstd_level) {
  SerializedSnapshot serialized = serialize_snapshot_shared(std::move(snapshot));
  WrittenSnapshot out;
  out.file_bytes = write_serialized_snapshot(path, serialized, zstd_level);
  out.shared = std::move(serialized.shared);
  out.shared.identity_hash = file_identity_hash(path);
  return out;
}

uint64_t file_identity_hash(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open to hash", path.string()));
  // Read, not mapped: the file's pages stay in the page cache, not in this
  // process's resident set.
  constexpr size_t kChunkBytes = size_t{4} << 20;
  const std::unique_ptr<char[]> chunk(new char[kChunkBytes]);
  uint64_t hash = kFnvOffsetBasis;
  while (in) {
    in.read(chunk.get(), static_cast<std::streamsize>(kChunkBytes));
    hash = fnv1a64(std::string_view(chunk.get(), static_cast<size_t>(in.gcount())), hash);
  }
  if (in.bad()) throw Error(fmt::format("{}: read error while hashing", path.string()));
  return hash;
}

std::vector<std::string> validate_shared_snapshot(const SharedSnapshot& shared) {
  std::vector<std::string> problems = validate_snapshot(shared.snapshot);
  for (size_t c = 0; c < shared.memory.size() && c < shared.snapshot.chips.size(); ++c) {
    const std::string where = fmt::format("chip {}", shared.snapshot.chips[c].chip());
    for (size_t i = 0; i < shared.memory[c].size(); ++i) {
      const SharedRegion& region = shared.memory[c][i];
      check_memory_region(where, static_cast<int>(i), region.space, region.address, region.data.size(), problems);
      check_region_address_space(shared.snapshot.header, shared.snapshot.chips[c],
                                 fmt::format("{} memory region {}", where, i), region.space, region.address,
                                 region.data.size(), problems);
    }
  }
  return problems;
}

std::string snapshot_identity(const std::string& path, uint64_t file_hash) {
  return fmt::format("{} fnv1a64 {:#018x}", std::filesystem::path(path).filename().string(), file_hash);
}

}  // namespace snr::snapshot
