// Fuzz entry point: the host execution-trace reader walks "nodes" in windows
// (one element each here, and all of them at once); both must give the same
// trace, or both the same error. A difference aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

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

std::string read(std::string_view text, size_t window_bytes) {
  try {
    return describe(snr::pytorch::detail::parse_host_trace_text(text, "fuzz-input", window_bytes));
  } catch (const snr::Error& e) {
    return std::string("error: ") + e.what();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (read(text, 1) != read(text, std::numeric_limits<size_t>::max())) std::abort();
  return 0;
}
