// ns-3 does not say when its next event is due; the backend needs that to
// keep one event of its own in snr's loop at exactly that time. So ns-3
// runs on a scheduler of ours: its default (a map ordered by time and
// insertion), plus a look at the front.
#pragma once

#include <ns3/nstime.h>

#include <optional>

#include "dsim/core/event.h"

namespace snr::dsim::ns3_backend {

// Makes ns-3's simulator use the peekable scheduler (again after each
// Simulator::Destroy), and picoseconds as its time step (once per process,
// before its first run: ns-3 allows one change): at ns steps a 1,030-byte
// packet on a 100 Gb/s link would take 82 ns instead of 82.4.
void prepare_simulator();

// The time of ns-3's next event in whole ns (rounded up), none when its
// queue is empty.

std::optional<TimeNs> next_event_ns();

// A time of ns-3's in whole ns, rounded up.
TimeNs ceil_ns(const ns3::Time& time);

}  // namespace snr::dsim::ns3_backend
