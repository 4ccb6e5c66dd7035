// rf_id == Kineto "Record function id": both sides record the same
// RecordFunction handle, so the key is exact. Names are still compared: a
// host trace paired with another run's Kineto trace shares small ids by
// chance, and such hits are counted as name mismatches, not matches.
#include <fmt/format.h>


#include "et/convert/flat_id_map.h"
#include "et/convert/op_matching.h"

namespace snr::et_convert {

namespace {

class RecordFunctionIdMatcher final : public OpMatcher {
 public:
  [[nodiscard]] std::string_view name() const override { return "record_function_id"; }

  MatcherOutcome run(const OpMatchInput& input, OpMatchState& state, uint8_t index) const override {
    MatcherOutcome outcome;
    size_t kineto_ops = 0;
    for (const auto& thread : input.kineto_threads) kineto_ops += thread.size();
    FlatIdMap event_by_id(kineto_ops);
    for (const auto& thread : input.kineto_threads) {
      for (size_t e : thread) {
        const auto& id = input.device.events[e].record_function_id;
        if (id && state.event_free(e)) event_by_id.emplace(*id, e);
      }
    }
    if (event_by_id.empty()) return outcome;
    for (const auto& thread : input.host_threads) {
      for (size_t h : thread) {
        const auto& node = input.host.nodes[h];
        if (!node.rf_id || !state.host_free(h)) continue;
        const size_t* event = event_by_id.find(static_cast<int64_t>(*node.rf_id));
        if (event == nullptr || !state.event_free(*event)) continue;
        if (!same_op_name(node, input.device.events[*event])) {
          ++state.name_mismatches;
          continue;
        }
        state.pair(h, *event, index);
        ++outcome.matched;
      }
    }
    outcome.notes.push_back(fmt::format("{} op(s) by Record function id", outcome.matched));
    return outcome;
  }
};

}  // namespace

std::unique_ptr<OpMatcher> make_record_function_id_matcher() {
  return std::make_unique<RecordFunctionIdMatcher>();
}

std::vector<std::unique_ptr<OpMatcher>> default_op_matchers() {
  std::vector<std::unique_ptr<OpMatcher>> matchers;
  matchers.push_back(make_record_function_id_matcher());
  matchers.push_back(make_external_id_offset_matcher());
  matchers.push_back(make_op_sequence_matcher());
  return matchers;
}

}  // namespace snr::et_convert
