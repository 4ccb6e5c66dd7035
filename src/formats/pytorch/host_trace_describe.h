// Everything a HostTrace keeps, as text, so that tests and fuzzers can
// compare two reads of the same bytes (windowed or not, scanned or walked)
// with one string comparison and print the difference.
#pragma once

#include <fmt/format.h>

#include <string>

#include "formats/pytorch/host_trace.h"

namespace snr::pytorch {

// What a reading with `options` leaves of `trace` (read with everything).
inline HostTrace without_left_out(HostTrace trace, const HostReadOptions& options) {
  for (auto& node : trace.nodes) {
    for (auto* values : {&node.inputs, &node.outputs}) {
      for (auto& v : *values) {
        if (!options.keep_strides) v.stride = "null";
      }
    }
    if (!options.keep_extra_attrs) node.extra_attrs.clear();
  }
  return trace;
}

inline std::string describe_host_trace(const HostTrace& trace) {
  std::string out = fmt::format("{} {} {} {} {}\n", trace.schema, trace.pid, trace.rank.value_or(-1), trace.linked,
                                trace.root_fields.dump());
  for (const auto& s : trace.skipped) out += fmt::format("skip {} {} {}\n", s.index, s.id, s.reason);
  for (const auto& g : trace.process_groups) {
    out += fmt::format("pg {} {} {} {} {}\n", g.pg_name, g.backend_config, g.backend_id, g.group_size,
                       fmt::join(g.ranks, ","));
  }
  const auto optional = [](const auto& value) { return value ? fmt::format("{}", *value) : std::string("-"); };
  for (const auto& n : trace.nodes) {
    out += fmt::format("{} {} {} {} {} {} {} {} {} {} {}\n", n.id, n.name, optional(n.parent_id), optional(n.rf_id),
                       n.fw_parent, n.seq_id, n.scope, n.tid, n.fw_tid, n.op_schema, static_cast<int>(n.kind));
    out += fmt::format(" {} {} {} {} {} {}\n", optional(n.ts_ns), optional(n.dur_ns), optional(n.launch_ts_ns),
                       n.stream, n.device, n.correlation);
    for (const auto* values : {&n.inputs, &n.outputs}) {
      for (const auto& v : *values) out += fmt::format(" v {} {} {} {}\n", v.type, v.value, v.shape, v.stride);
    }
    for (const auto* values : {&n.inputs, &n.outputs}) {
      for (const auto& t : find_tensors(*values, trace.text_pool.get())) {
        out += fmt::format(" t {} {} {} {} {} {} {}\n", t.tensor_id, t.storage_id, t.offset, t.num_elem, t.elem_bytes,
                           t.device, t.size_bytes);
      }
    }
    for (const auto& a : n.extra_attrs) out += fmt::format(" a {}\n", a);
    for (const auto& s : n.syncs) out += fmt::format(" s {} {} {}\n", s.api, s.ts_ns, s.stream);
    for (const auto& w : n.stream_waits) out += fmt::format(" w {} {} {}\n", w.ts_ns, w.stream, w.wait_on_stream);
  }
  return out;
}

}  // namespace snr::pytorch
