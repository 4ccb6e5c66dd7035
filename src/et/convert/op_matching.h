// Matching host execution-trace operators to Kineto CPU ops (`snr et link`).
// Matchers run in a fixed order and each only sees what the ones before it
// left unmatched:
//   record_function_id  rf_id == Kineto "Record function id" (exact ids);
//   external_id_offset  rf_id + d == Kineto "External id", with each offset d
//                       detected from the data per host thread (piecewise:
//                       a thread may need several offsets) and accepted only
//                       when it matches far more ops than chance would;
//   op_sequence         the thread's op-name sequence aligned with a Kineto
//                       thread's, between already matched anchors, or over
//                       the whole thread when nothing anchors it.
// Every pair accepted by any matcher has equal names. Details in
// docs/linking.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/kineto_trace.h"

namespace snr::et_convert {

inline constexpr size_t kNoMatch = std::numeric_limits<size_t>::max();

struct OpMatchInput {
  const pytorch::HostTrace& host;
  const pytorch::KinetoTrace& device;
  // Host node indices to match (operators and "## ... ##" markers; not the
  // observer's process/thread roots), grouped per host thread in execution
  // order (rf_id, else id).
  std::vector<std::vector<size_t>> host_threads;
  // Kineto cpu_op / user_annotation event indices grouped per (pid, tid), in
  // start order (outer before inner at equal starts).
  std::vector<std::vector<size_t>> kineto_threads;
};

struct OpMatchState {
  std::vector<size_t> event_of_host;  // per host node index
  std::vector<size_t> host_of_event;  // per Kineto event index
  std::vector<uint8_t> matcher_of_host;  // per host node index: position of the matcher + 1
  size_t name_mismatches = 0;  // key hits rejected because the names differ (diagnostic)

  [[nodiscard]] bool host_free(size_t h) const { return event_of_host[h] == kNoMatch; }
  [[nodiscard]] bool event_free(size_t e) const { return host_of_event[e] == kNoMatch; }
  void pair(size_t h, size_t e, uint8_t matcher) {
    event_of_host[h] = e;
    host_of_event[e] = h;
    matcher_of_host[h] = matcher;
  }
};

struct MatcherOutcome {
  size_t matched = 0;
  std::vector<std::string> notes;  // e.g. "thread 1: External id = rf_id + 1 (801 ops)"
};

class OpMatcher {
 public:
  virtual ~OpMatcher() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Pairs free host ops with free Kineto ops; `index` is this matcher's
  // position, recorded in state.matcher_of_host.
  virtual MatcherOutcome run(const OpMatchInput& input, OpMatchState& state, uint8_t index) const = 0;
};

std::unique_ptr<OpMatcher> make_record_function_id_matcher();
std::unique_ptr<OpMatcher> make_external_id_offset_matcher();
std::unique_ptr<OpMatcher> make_op_sequence_matcher();

// The matchers in the order they run.
std::vector<std::unique_ptr<OpMatcher>> default_op_matchers();

// Names of host ops as they appear in Kineto: identical strings.
inline bool same_op_name(const pytorch::HostNode& host, const pytorch::KinetoEvent& event) {
  return host.name == event.name;
}

// "## name ##" markers the observer writes (process-group init, loop
// markers): operators for matching, counted apart from real ops.
inline bool is_trace_marker(std::string_view name) {
  return name.size() >= 6 && name.starts_with("## ") && name.ends_with(" ##");
}

// Execution-order key of a host op (rf_id when recorded, else id).
inline uint64_t host_order_key(const pytorch::HostNode& node) { return node.rf_id.value_or(node.id); }

}  // namespace snr::et_convert
