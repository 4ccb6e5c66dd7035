// The narrow waist between whoever sends messages (the collective engine,
// point-to-point sends) and a network backend. A backend moves messages
// between NPUs; it keeps its own state, registers its own handler on the
// event loop for its own steps (hops), and when a message reaches its
// destination schedules a MessageArrived event for the handler the sender
// named — the same event slot a last hop would take, so the (time,
// scheduling order) tie rule does not depend on who delivers. Backends know
// nothing about collectives, traces or who the senders are.
// Backends are chosen by name through the registry (registry.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/core/event_loop.h"

namespace snr::dsim {

class LinkBandwidthFactors;  // dsim/perturbation/perturbation.h

// A sender's own name for a message (each sender has its own id space).
using MessageId = uint32_t;

// Delivered to the sender's handler when a message arrives; every handler
// that sends messages reserves this kind for it.
struct MessageArrived {
  static constexpr uint8_t kKind = 0;
  MessageId message;
};

struct LinkStats {
  std::string name;  // "npu3->npu4", "npu3->switch(dim0)"
  uint64_t bytes = 0;
  uint64_t messages = 0;
  uint64_t busy_ns = 0;
};

// One message as a packet-level backend carried it: injected at the
// sender at start_ns, its last byte received at end_ns.
struct FlowStats {
  MessageId message = 0;
  NpuId src = 0;
  NpuId dst = 0;
  uint64_t bytes = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  [[nodiscard]] TimeNs completion_ns() const { return end_ns - start_ns; }
};

// How many messages a packet-level backend carried and their completion
// times (end - start).
struct FlowTotals {
  uint64_t count = 0;
  TimeNs min_fct_ns = 0;
  TimeNs max_fct_ns = 0;
  double mean_fct_ns = 0;
};

// The messages a packet-level backend carried: how many and their
// completion times, always; each one's record only when asked (snr sim -o
// writes them to flows.csv), so that a run without outputs holds nothing
// per message it has finished. Records come in completion order, as ns-3's
// flow-completion output does.
class FlowLog {
 public:
  void keep_records(bool keep) { keep_records_ = keep; }
  void add(const FlowStats& flow) {
    const TimeNs fct_ns = flow.completion_ns();
    if (count_ == 0 || fct_ns < min_fct_ns_) min_fct_ns_ = fct_ns;
    if (fct_ns > max_fct_ns_) max_fct_ns_ = fct_ns;
    sum_fct_ns_ += fct_ns;
    ++count_;
    if (keep_records_) records_.push_back(flow);
  }
  [[nodiscard]] FlowTotals totals() const {
    return {count_, min_fct_ns_, max_fct_ns_,
            count_ == 0 ? 0.0 : static_cast<double>(sum_fct_ns_) / static_cast<double>(count_)};
  }
  // The records kept, in completion order; the log keeps its totals.
  [[nodiscard]] std::vector<FlowStats> take_records() { return std::move(records_); }

 private:
  bool keep_records_ = false;
  uint64_t count_ = 0;
  TimeNs min_fct_ns_ = 0, max_fct_ns_ = 0;
  __extension__ unsigned __int128 sum_fct_ns_ = 0;  // exact whatever the count
  std::vector<FlowStats> records_;
};

[[noreturn]] void throw_too_many_in_flight(std::string_view backend);

// The state of the messages a backend has in flight, one slot each, a
// slot reused once its message is done (memory follows what is in flight,
// not what was carried). Slots are numbered from 0; a reused slot keeps
// its old contents until the caller overwrites them.
template <class T>
class InFlightSlots {
 public:
  // A free slot; throws snr::Error (naming `backend`) past 2^32 in flight.
  uint32_t take(std::string_view backend) {
    if (!free_.empty()) {
      const uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    if (slots_.size() >= UINT32_MAX) throw_too_many_in_flight(backend);
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  void release(uint32_t slot) { free_.push_back(slot); }
  [[nodiscard]] T& operator[](uint32_t slot) { return slots_[slot]; }
  [[nodiscard]] const T& operator[](uint32_t slot) const { return slots_[slot]; }
  // Slots ever made (in use or free).
  [[nodiscard]] size_t size() const { return slots_.size(); }

 private:
  std::vector<T> slots_;
  std::vector<uint32_t> free_;
};

// Packet counters of a packet-level backend.
struct PacketStats {
  uint64_t packets_sent = 0;     // by the NPUs
  uint64_t packets_dropped = 0;  // anywhere (a full port queue)
  uint64_t max_queue_bytes = 0;  // the deepest any port queue got
  std::string max_queue_port;    // where ("node 3 -> node 9")
};

class NetworkBackend {
 public:
  virtual ~NetworkBackend() = default;
  // Injects `bytes` from src to dst now; a MessageArrived{message} event
  // for `deliver_to` follows (delivered at once when src == dst).
  virtual void send(MessageId message, NpuId src, NpuId dst, uint64_t bytes, HandlerId deliver_to) = 0;
  // Per-link statistics of links that carried traffic, in a stable order.
  [[nodiscard]] virtual std::vector<LinkStats> link_stats() const = 0;
  [[nodiscard]] virtual std::string name() const = 0;
  // Scales link bandwidths (stragglers and heterogeneity, see
  // dsim/perturbation); called at most once, before the first send. Each
  // backend maps the factors onto its own links; one that has no per-link
  // model keeps this default, which refuses with the backend's name.
  virtual void set_bandwidth_factors(const LinkBandwidthFactors& factors);
  // The log of carried messages and the packet counters, from backends
  // that model packets (none from the analytical ones).
  [[nodiscard]] virtual FlowLog* flow_log() { return nullptr; }
  [[nodiscard]] virtual std::optional<PacketStats> packet_stats() const { return std::nullopt; }
  // What the run should tell the user about how this backend treated it
  // (printed as notes after the results).
  [[nodiscard]] virtual std::vector<std::string> notes() const { return {}; }
};

// A duration computed in floating point as whole ns, truncated as ASTRA-sim
// does; throws snr::Error when it does not fit (a bandwidth factor so small
// that a message would take longer than 2^63 ns).
TimeNs checked_truncated_ns(double ns, std::string_view what);

// ASTRA-sim's analytical network counts 1 GB as 2^30 bytes.
inline double gib_per_s_to_bytes_per_ns(double gib_per_s) { return gib_per_s * 1073741824.0 / 1e9; }

// Multi-dimensional address helpers (dimension 0 varies fastest).
class DimensionLayout {
 public:
  explicit DimensionLayout(const NetworkConfig& config);
  [[nodiscard]] size_t dims() const { return sizes_.size(); }
  [[nodiscard]] uint32_t size(size_t dim) const { return sizes_[dim]; }
  [[nodiscard]] uint64_t stride(size_t dim) const { return strides_[dim]; }
  [[nodiscard]] uint32_t coordinate(NpuId npu, size_t dim) const {
    return static_cast<uint32_t>((npu / strides_[dim]) % sizes_[dim]);
  }
  [[nodiscard]] NpuId with_coordinate(NpuId npu, size_t dim, uint32_t coordinate) const {
    return static_cast<NpuId>(npu - coordinate_of(npu, dim) * strides_[dim] + coordinate * strides_[dim]);
  }

 private:
  [[nodiscard]] uint64_t coordinate_of(NpuId npu, size_t dim) const { return coordinate(npu, dim); }
  std::vector<uint32_t> sizes_;
  std::vector<uint64_t> strides_;
};

// Hops inside one dimension between two coordinates (Ring: shortest way
// around, bidirectional; FullyConnected: 1; Switch: 2). Inline: the
// congestion-unaware backend asks once per message.
inline int hops_in_dimension(TopologyKind topology, uint32_t size, uint32_t from, uint32_t to) {
  if (from == to) return 0;
  switch (topology) {
    case TopologyKind::kRing: {
      const uint32_t clockwise = to >= from ? to - from : to + size - from;
      const uint32_t anticlockwise = size - clockwise;
      return static_cast<int>(anticlockwise < clockwise ? anticlockwise : clockwise);
    }
    case TopologyKind::kFullyConnected: return 1;
    case TopologyKind::kSwitch: return 2;
  }
  return 0;
}

}  // namespace snr::dsim
