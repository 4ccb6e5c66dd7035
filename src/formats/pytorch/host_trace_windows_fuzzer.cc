// Fuzz entry point: the host execution-trace reader walks "nodes" in windows
// (one element each here, and all of them at once); both must give the same
// trace, or both the same error, and so must the node scanner and the
// simdjson walk it falls back to (detail::NodeReading). So must reading the
// same bytes from a file (mapped and handed back a window at a time when
// plain), and so, strides and extra attributes aside, must a reading that
// leaves those out (HostReadOptions). A difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

#include "common/error.h"
#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/host_trace_describe.h"

namespace {

template <typename Read>
std::string describe_or_error(Read&& read) {
  try {
    return snr::pytorch::describe_host_trace(read());
  } catch (const snr::Error& e) {
    return std::string("error: ") + e.what();
  }
}

using snr::pytorch::detail::NodeReading;

std::string read(std::string_view text, const std::string& source, size_t window_bytes,
                 NodeReading reading = NodeReading::kScanFirst) {
  return describe_or_error(
      [&] { return snr::pytorch::detail::parse_host_trace_text(text, source, window_bytes, reading); });
}

std::string read_file(const std::filesystem::path& path, size_t window_bytes,
                      NodeReading reading = NodeReading::kScanFirst, const snr::pytorch::HostReadOptions& options = {}) {
  return describe_or_error([&] { return snr::pytorch::detail::read_host_trace(path, window_bytes, reading, options); });
}

constexpr snr::pytorch::HostReadOptions kLeaveOut{.keep_strides = false, .keep_extra_attrs = false};

// The file each input is written to, removed when the process exits.
struct InputFile {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / fmt::format("snr_host_trace_windows_fuzzer_{}.json", ::getpid());
  InputFile() = default;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() {
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const InputFile file;
  const std::filesystem::path& path = file.path;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::string whole = read(text, path.string(), std::numeric_limits<size_t>::max());
  if (read(text, path.string(), 1) != whole) std::abort();
  // The scanner and the simdjson walk must agree (or the scanner decline).
  if (read(text, path.string(), std::numeric_limits<size_t>::max(), NodeReading::kWalkOnly) != whole) std::abort();
  if (read(text, path.string(), 1, NodeReading::kWalkOnly) != whole) std::abort();
  // Read in two halves at once, from a guessed cut, it must still agree.
  if (read(text, path.string(), 1, NodeReading::kScanFirstSplit) != whole) std::abort();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  if (read_file(path, 1) != whole) std::abort();
  // Strides and extra attributes left out, the rest is the same trace (or
  // the same error).
  const std::string without = describe_or_error([&] {
    return snr::pytorch::without_left_out(
        snr::pytorch::parse_host_trace_text(text, path.string()), kLeaveOut);
  });
  if (read_file(path, 1, NodeReading::kScanFirst, kLeaveOut) != without) std::abort();
  if (read_file(path, std::numeric_limits<size_t>::max(), NodeReading::kScanFirstSplit, kLeaveOut) != without) {
    std::abort();
  }
  return 0;
}
