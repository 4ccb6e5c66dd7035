// The NoC network's flow-level timing (noc_network.h, "Flow level"): a
// message of k consecutive cache lines striped over HBM channels and I/O
// ports, and cut-through over router and CU links.
#include <algorithm>

#include "dsim/noc/noc_network.h"

namespace snr::dsim::noc {

// Lines interleave over HBM channels (line mod channels) and I/O ports
// ((line / channels + line) mod ports), as send() routes a single line:
// line j of a message uses its own channel's or port's link, which lies 2 *
// (its lane - the first line's lane) links from the first line's (every
// endpoint has an up and a down link, numbered in endpoint order; the
// scale-up links likewise in port order).
TimePs NocNetwork::stripe(const Step& hop, const Transit& transit) {
  const TagRoute& route = tags_[transit.tag];
  const int kind = static_cast<int>(hop.kind);
  const uint32_t lines = route.lines;
  const uint32_t line_bytes = (transit.bytes + lines - 1) / lines;
  const TimePs serialize = serialize_ps(kind, line_bytes);
  const bool by_channel = hop.kind == LinkKind::kHbm;
  const auto lane = [&](uint64_t line) -> int64_t {
    return static_cast<int64_t>(by_channel ? line % hbm_ : io_port_of_line(line));
  };
  const int64_t first_lane = lane(route.first_line);
  const TimePs now = loop_.now();
  TimePs last_ps = now;
  for (uint32_t j = 0; j < lines; ++j) {
    const int64_t index = int64_t{hop.link} + 2 * (lane(route.first_line + j) - first_lane);
    Link& link = links_[static_cast<size_t>(index)];
    // In arrival order, as a FIFO queue would send them.
    const TimePs start = std::max(now, link.free_at_ps);
    link.free_at_ps = start + serialize;
    link.busy_ps += serialize;
    kind_queued_ps_[kind] += start - now;
    if (timeline_) [[unlikely]] {
      // A line that finds its link busy waits from now to its start: in the
      // trace's queue counters as at request level (their sums are queued_ns).
      if (start > now) {
        timeline_->enqueued(kind, now);
        timeline_->dequeued(kind, start);
      }
      timeline_->transmitted(kind, start, serialize, line_bytes);
    }
    last_ps = std::max(last_ps, start + serialize);
  }
  kind_messages_[kind] += lines;
  kind_bytes_[kind] += transit.bytes;
  return last_ps + hop.latency_ps;
}

TimePs NocNetwork::flow_arrival_ps(const Step& hop, const Transit& transit, TimePs start_ps,
                                   TimePs serialize_ps_all) const {
  const uint32_t lines = tags_[transit.tag].lines;
  // Into the endpoint: the whole message has arrived (the CU sees its last
  // line); on the way, the head goes on after one line.
  if (lines <= 1 || hop.node == transit.dst) return start_ps + serialize_ps_all + hop.latency_ps;
  return start_ps + serialize_ps(static_cast<int>(hop.kind), (transit.bytes + lines - 1) / lines) + hop.latency_ps;
}

}  // namespace snr::dsim::noc
