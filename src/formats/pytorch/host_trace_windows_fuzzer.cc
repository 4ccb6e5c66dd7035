// Fuzz entry point: the host execution-trace reader walks "nodes" in windows
// (one element each here, and all of them at once); both must give the same
// trace, or both the same error. So must reading the same bytes from a file
// (mapped and handed back a window at a time when plain). A difference aborts.
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

namespace {

// Everything the reader keeps, as text.
std::string describe(const snr::pytorch::HostTrace& trace) {
  std::string out = fmt::format("{} {} {} {} {}\n", trace.schema, trace.pid, trace.rank.value_or(-1), trace.linked,
                                trace.root_fields.dump());
  for (const auto& s : trace.skipped) out += fmt::format("skip {} {} {}\n", s.index, s.id, s.reason);
  for (const auto& g : trace.process_groups) out += fmt::format("pg {} {} {}\n", g.pg_name, g.backend_id, g.group_size);
  for (const auto& n : trace.nodes) {
    out += fmt::format("{} {} {} {} {} {} {} {} {} {}\n", n.id, n.name, n.parent_id.value_or(0), n.rf_id.value_or(0),
                       n.seq_id, n.tid, n.op_schema, static_cast<int>(n.kind), n.ts_ns.value_or(0), n.stream);
    for (const auto* values : {&n.inputs, &n.outputs}) {
      for (const auto& v : *values) out += fmt::format(" {} {} {} {}\n", v.type, v.value, v.shape, v.stride);
    }
    for (const auto& t : n.input_tensors) out += fmt::format(" t {} {}\n", t.tensor_id, t.size_bytes);
    for (const auto& a : n.extra_attrs) out += fmt::format(" a {}\n", a);
    out += fmt::format(" {} {}\n", n.syncs.size(), n.stream_waits.size());
  }
  return out;
}

template <typename Read>
std::string describe_or_error(Read&& read) {
  try {
    return describe(read());
  } catch (const snr::Error& e) {
    return std::string("error: ") + e.what();
  }
}

std::string read(std::string_view text, const std::string& source, size_t window_bytes) {
  return describe_or_error([&] { return snr::pytorch::detail::parse_host_trace_text(text, source, window_bytes); });
}

std::string read_file(const std::filesystem::path& path, size_t window_bytes) {
  return describe_or_error([&] { return snr::pytorch::detail::read_host_trace(path, window_bytes); });
}

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
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(text.data(), static_cast<std::streamsize>(text.size()));
  if (read_file(path, 1) != whole) std::abort();
  return 0;
}
