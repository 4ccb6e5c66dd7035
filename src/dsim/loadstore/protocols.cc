#include "dsim/loadstore/protocols.h"

#include <fmt/format.h>

#include <cmath>

#include "common/error.h"

namespace snr::dsim::loadstore {
namespace {

void check_link(const AlphaBetaLink& link) {
  if (!std::isfinite(link.bandwidth_bytes_per_s) || link.bandwidth_bytes_per_s <= 0) {
    throw Error(fmt::format("protocol model: bandwidth {} B/s must be positive", link.bandwidth_bytes_per_s));
  }
  if (!std::isfinite(link.latency_s) || link.latency_s < 0) {
    throw Error(fmt::format("protocol model: latency {} s must not be negative", link.latency_s));
  }
}

void check_range(uint64_t min_bytes, uint64_t max_bytes) {
  if (min_bytes == 0 || max_bytes < min_bytes) {
    throw Error(fmt::format("protocol model: sizes {}..{} B must be a non-empty range starting above 0", min_bytes,
                            max_bytes));
  }
}

// LL writes a flag beside every data word: half of each store is data.
constexpr double kLlDataFraction = 0.5;
// LL128 keeps one 8-byte flag word per 128-byte line.
constexpr double kLl128DataFraction = 120.0 / 128.0;
// Simple: a signal before the transfer and one after it, one latency each.
constexpr double kSimpleSynchronizations = 2;

}  // namespace

std::string_view protocol_name(Protocol protocol) {
  switch (protocol) {
    case Protocol::kLL: return "LL";
    case Protocol::kLL128: return "LL128";
    case Protocol::kSimple: break;
  }
  return "Simple";
}

double protocol_transfer_s(Protocol protocol, const AlphaBetaLink& link, double bytes) {
  check_link(link);
  if (!std::isfinite(bytes) || bytes < 0) throw Error(fmt::format("protocol model: size {} B is negative", bytes));
  if (protocol == Protocol::kLL) return link.latency_s + bytes / (link.bandwidth_bytes_per_s * kLlDataFraction);
  if (protocol == Protocol::kLL128) return link.latency_s + bytes / (link.bandwidth_bytes_per_s * kLl128DataFraction);
  return (1 + kSimpleSynchronizations) * link.latency_s + bytes / link.bandwidth_bytes_per_s;
}

double protocol_bandwidth_bytes_per_s(Protocol protocol, const AlphaBetaLink& link, double bytes) {
  const double seconds = protocol_transfer_s(protocol, link, bytes);
  return seconds > 0 ? bytes / seconds : 0.0;
}

double simple_equals_ll_bytes(const AlphaBetaLink& link) {
  check_link(link);
  // α + S/(fB) = (1 + k)α + S/B  ⇔  S (1/f − 1) / B = kα
  return kSimpleSynchronizations * link.latency_s * link.bandwidth_bytes_per_s / (1 / kLlDataFraction - 1);
}

std::vector<ProtocolSweepRow> protocol_sweep(const AlphaBetaLink& link, uint64_t min_bytes, uint64_t max_bytes) {
  check_link(link);
  check_range(min_bytes, max_bytes);
  std::vector<ProtocolSweepRow> rows;
  for (uint64_t bytes = min_bytes;; bytes *= 2) {
    const auto s = static_cast<double>(bytes);
    rows.push_back({bytes, protocol_transfer_s(Protocol::kLL, link, s), protocol_transfer_s(Protocol::kSimple, link, s)});
    if (bytes > max_bytes / 2) break;
  }
  return rows;
}

uint64_t simple_overtakes_ll_bytes(const AlphaBetaLink& link, uint64_t min_bytes, uint64_t max_bytes) {
  for (const ProtocolSweepRow& row : protocol_sweep(link, min_bytes, max_bytes)) {
    if (row.simple_s < row.ll_s) return row.bytes;
  }
  return 0;
}

}  // namespace snr::dsim::loadstore
