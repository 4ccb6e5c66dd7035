// Seed 003 §3.2 (Figure 4): the α–β view of a collective library's two
// protocols on one link of bandwidth B and latency α.
//
//   LL:     no synchronization; data and flag travel in one store, so only
//           half of the link's bandwidth carries data:   t = α + S / (B/2)
//   Simple: the full bandwidth, with a synchronization (one signal across
//           the link) before and one after the transfer: t = α + α + S/B + α
//   LL128:  NCCL's middle protocol: a flag word in every 128-byte line, so
//           no synchronization and 120/128 of the bandwidth:
//                                                        t = α + S / (B·15/16)
//
// Both take the same time at S* = 2αB (α + 2S/B = 3α + S/B), so the size
// at which Simple overtakes grows linearly with the latency and with the
// bandwidth: underestimating α moves the crossover to sizes far too small,
// and the faster the link the larger the error (docs/loadstore.md,
// "Protocols in the α–β model").
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace snr::dsim::loadstore {

enum class Protocol { kLL, kSimple, kLL128 };
std::string_view protocol_name(Protocol protocol);  // "LL", "Simple", "LL128"

struct AlphaBetaLink {
  double bandwidth_bytes_per_s = 0;
  double latency_s = 0;
};

// Time to move `bytes` over the link with the protocol; throws snr::Error for
// a non-positive bandwidth, a negative latency or size.
double protocol_transfer_s(Protocol protocol, const AlphaBetaLink& link, double bytes);
// bytes / protocol_transfer_s: the transfer bandwidth Figure 4 plots.
double protocol_bandwidth_bytes_per_s(Protocol protocol, const AlphaBetaLink& link, double bytes);
// S* = 2αB, where both take the same time.
double simple_equals_ll_bytes(const AlphaBetaLink& link);
// The first size of the power-of-two series min_bytes, 2·min_bytes, ... (up
// to max_bytes) at which Simple is faster than LL (how a size sweep reads
// it); 0 when none is.
uint64_t simple_overtakes_ll_bytes(const AlphaBetaLink& link, uint64_t min_bytes, uint64_t max_bytes);

struct ProtocolSweepRow {
  uint64_t bytes = 0;
  double ll_s = 0;
  double simple_s = 0;
};
// Both protocols at min_bytes, 2·min_bytes, ... up to max_bytes.
std::vector<ProtocolSweepRow> protocol_sweep(const AlphaBetaLink& link, uint64_t min_bytes, uint64_t max_bytes);

}  // namespace snr::dsim::loadstore
