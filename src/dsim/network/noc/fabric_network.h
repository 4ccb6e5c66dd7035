// The NoC-level backend for fabrics (`--network-backend noc`): seed 003
// §4.5's Simple network, on the general graph of fabric_config.h.
//
// A message is cut into segments of segment_bytes (the last one shorter;
// a message of 0 bytes is one header-only segment) that follow one path,
// chosen when the message is sent (fabric_routing.h). Every directed link
// carries one segment at a time: a segment occupies it for (payload +
// header bytes) / bandwidth and reaches the far node a latency later;
// segments that find the link busy wait in arrival order (FIFO, unbounded).
// A node forwards a segment only once it holds all of it (store and
// forward), so a message pipelines across hops one segment deep, and
// messages that share a link interleave their segments there. A sender puts
// all of a message's segments on its first link at once: messages leaving
// an NPU by the same link go one after another.
//
// Times are kept in picoseconds (a 1 KiB segment on 100 Gb/s takes
// 81.92 ns; whole ns would lose 0.92 ns per segment and hop); events fire
// at the next whole ns and carry the rest. The message arrives at the
// sender's handler at its last segment's arrival rounded up to the ns.
#pragma once

#include <memory>

#include "dsim/core/event_loop.h"
#include "dsim/network/network.h"
#include "dsim/network/noc/fabric_config.h"

namespace snr::dsim {

std::unique_ptr<NetworkBackend> make_noc_fabric_network(const NocFabricConfig& config, EventLoop& loop);

}  // namespace snr::dsim
