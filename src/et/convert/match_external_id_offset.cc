// rf_id + d == Kineto "External id" with a detected offset d.
//
// Profilers number External ids from their own counter, which need not start
// where the execution-trace observer's rf_ids start (the 8-rank DLRM traces
// align at d = +1; a Kineto window over many iterations aligns the ET's
// iteration at some large d). Per host thread, in rounds:
//   1. candidate offsets: a histogram of (External id - rf_id) over same-name
//      pairs, built from the rarest names first within a pair budget;
//   2. each of the top candidates is scored exactly (ops whose shifted id
//      hits a free Kineto op of the same name);
//   3. the best is accepted only when it beats chance by a wide margin:
//      score >= kMinScore and score >= kChanceFactor x the matches expected
//      at a random offset (the sum over the thread's ops of the frequency of
//      their name among Kineto ops). Ties (a Kineto window over several
//      iterations fits every iteration equally) go to the piece that sits in
//      time where the rf_ids say it should, right after the ops already
//      paired; then to the offset closest to the one accepted before.
// Of the accepted offset's hits, only those in runs of two or more
// consecutive ops pair. Rounds repeat on what is left, so a thread whose ids jump (ops of another
// thread took ids in between on one side only) gets one offset per piece.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "et/convert/op_matching.h"

namespace snr::et_convert {

namespace {

constexpr size_t kMaxRounds = 8;
constexpr size_t kCandidates = 64;
constexpr size_t kPairBudget = size_t{1} << 22;
constexpr size_t kMinScore = 3;
constexpr double kChanceFactor = 4.0;

struct Candidate {
  int64_t offset = 0;
  size_t score = 0;
  // Equal scores mean repeated iterations in the Kineto window. rf_ids are
  // one counter over all threads, so they order ops in time: the piece that
  // fits starts after the matched op with the next lower rf_id and before
  // the one with the next higher rf_id, as close after the former as possible.
  bool in_time_order = true;
  int64_t gap_ns = 0;
};

// Counts of int64 keys in one flat open-addressed table: the offset
// histogram takes millions of increments over few distinct offsets, where
// std::unordered_map's node per key and pointer chase dominated.
class OffsetCounter {
 public:
  OffsetCounter() : slots_(kInitialSlots) {}

  void add(int64_t key) {
    if (2 * (used_ + 1) > slots_.size()) grow();
    ++slot_for(slots_, key).count;
  }

  template <typename Visit>
  void for_each(Visit&& visit) const {
    for (const Slot& slot : slots_) {
      if (slot.count != 0) visit(slot.key, slot.count);
    }
  }

 private:
  struct Slot {
    int64_t key = 0;
    size_t count = 0;  // 0: empty
  };
  static constexpr size_t kInitialSlots = 1024;

  Slot& slot_for(std::vector<Slot>& slots, int64_t key) {
    const size_t mask = slots.size() - 1;
    // Fibonacci hashing: offsets are small consecutive integers.
    size_t at = static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (slots[at].count != 0 && slots[at].key != key) at = (at + 1) & mask;
    if (slots[at].count == 0) {
      slots[at].key = key;
      if (&slots == &slots_) ++used_;
    }
    return slots[at];
  }

  void grow() {
    std::vector<Slot> bigger(slots_.size() * 2);
    for (const Slot& slot : slots_) {
      if (slot.count != 0) slot_for(bigger, slot.key).count = slot.count;
    }
    slots_.swap(bigger);
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
};

class ExternalIdIndex {
 public:
  ExternalIdIndex(const OpMatchInput& input, const OpMatchState& state) : input_(input) {
    for (const auto& thread : input.kineto_threads) {
      for (size_t e : thread) {
        const auto& id = input.device.events[e].external_id;
        if (!id || !state.event_free(e)) continue;
        by_id_.push_back({*id, e});
      }
    }
    std::sort(by_id_.begin(), by_id_.end());
  }

  [[nodiscard]] bool empty() const { return by_id_.empty(); }

  // The first free Kineto op with External id `id` named like host op `h`.
  [[nodiscard]] size_t find(int64_t id, const pytorch::HostNode& node, const OpMatchState& state,
                            bool& name_differs) const {
    auto it = std::lower_bound(by_id_.begin(), by_id_.end(), std::make_pair(id, size_t{0}));
    for (; it != by_id_.end() && it->first == id; ++it) {
      if (!state.event_free(it->second)) continue;
      if (same_op_name(node, input_.device.events[it->second])) return it->second;
      name_differs = true;
    }
    return kNoMatch;
  }

  // External ids of free Kineto ops per name, and the total.
  void ids_by_name(const OpMatchState& state,
                   std::unordered_map<std::string_view, std::vector<int64_t>>& out, size_t& total) const {
    out.clear();
    total = 0;
    for (const auto& [id, e] : by_id_) {
      if (!state.event_free(e)) continue;
      out[input_.device.events[e].name].push_back(id);
      ++total;
    }
  }

 private:
  const OpMatchInput& input_;
  std::vector<std::pair<int64_t, size_t>> by_id_;
};

class ExternalIdOffsetMatcher final : public OpMatcher {
 public:
  [[nodiscard]] std::string_view name() const override { return "external_id_offset"; }

  MatcherOutcome run(const OpMatchInput& input, OpMatchState& state, uint8_t index) const override {
    MatcherOutcome outcome;
    const ExternalIdIndex index_by_id(input, state);
    if (index_by_id.empty()) return outcome;
    std::optional<int64_t> global_reference;
    std::map<uint64_t, int64_t> matched_ts_by_rf;  // ops paired so far, any thread
    for (const auto& thread : input.host_threads) {
      for (size_t h : thread) {
        const auto& node = input.host.nodes[h];
        if (!state.host_free(h) && node.rf_id) {
          matched_ts_by_rf[*node.rf_id] = input.device.events[state.event_of_host[h]].ts_ns;
        }
      }
    }
    std::unordered_map<std::string_view, std::vector<int64_t>> ids_by_name;
    size_t kineto_total = 0;
    for (const auto& thread : input.host_threads) {
      std::optional<int64_t> reference = global_reference;
      std::vector<std::string> pieces;
      for (size_t round = 0; round < kMaxRounds; ++round) {
        std::vector<size_t> free_ops;
        for (size_t h : thread) {
          if (state.host_free(h) && input.host.nodes[h].rf_id) free_ops.push_back(h);
        }
        if (free_ops.size() < kMinScore) break;
        index_by_id.ids_by_name(state, ids_by_name, kineto_total);
        if (kineto_total == 0) break;
        const auto candidates = top_offsets(input, free_ops, ids_by_name, reference);
        double expected_by_chance = 0.0;
        for (size_t h : free_ops) {
          const auto it = ids_by_name.find(input.host.nodes[h].name);
          if (it != ids_by_name.end()) expected_by_chance += static_cast<double>(it->second.size());
        }
        expected_by_chance /= static_cast<double>(kineto_total);
        std::vector<Candidate> scored = candidates;
        for (auto& candidate : scored) {
          candidate.score = score(input, state, index_by_id, free_ops, candidate.offset);
          place_in_time(input, state, index_by_id, free_ops, matched_ts_by_rf, candidate);
        }
        sort_candidates(scored, reference);
        std::optional<Candidate> best;
        if (!scored.empty()) best = scored.front();
        const size_t ties = best ? static_cast<size_t>(std::count_if(scored.begin() + 1, scored.end(),
                                                                     [&](const Candidate& c) {
                                                                       return c.score == best->score;
                                                                     }))
                                 : 0;
        if (!best || best->score < kMinScore ||
            static_cast<double>(best->score) < kChanceFactor * expected_by_chance) {
          break;
        }
        // A pair counts only inside a run of at least two consecutive hits:
        // where the offset holds, neighbours hit too; a chance hit of a
        // common name outside the offset's piece stands alone.
        std::vector<size_t> hits(free_ops.size(), kNoMatch);
        for (size_t q = 0; q < free_ops.size(); ++q) {
          bool name_differs = false;
          const int64_t id = static_cast<int64_t>(*input.host.nodes[free_ops[q]].rf_id) + best->offset;
          hits[q] = index_by_id.find(id, input.host.nodes[free_ops[q]], state, name_differs);
        }
        size_t matched = 0;
        for (size_t q = 0; q < free_ops.size(); ++q) {
          if (hits[q] == kNoMatch) continue;
          const bool run = (q > 0 && hits[q - 1] != kNoMatch) || (q + 1 < hits.size() && hits[q + 1] != kNoMatch);
          if (!run) continue;
          state.pair(free_ops[q], hits[q], index);
          matched_ts_by_rf[*input.host.nodes[free_ops[q]].rf_id] = input.device.events[hits[q]].ts_ns;
          ++matched;
        }
        if (matched == 0) break;
        outcome.matched += matched;
        pieces.push_back(fmt::format("{:+} ({} op{}{})", best->offset, matched, matched == 1 ? "" : "s",
                                     ties == 0 ? "" : fmt::format(", {} other offset(s) fit equally", ties)));
        reference = best->offset;
        if (!global_reference) global_reference = best->offset;
      }
      if (!pieces.empty()) {
        const auto& first = input.host.nodes[thread.front()];
        std::string joined;
        for (const auto& p : pieces) joined += (joined.empty() ? "" : ", ") + p;
        outcome.notes.push_back(fmt::format("host thread {}: External id = rf_id {}", first.tid, joined));
      }
    }
    // Name disagreements at the accepted offsets are what a wrong pairing
    // looks like; count them once, after every thread is done.
    if (global_reference) {
      for (const auto& thread : input.host_threads) {
        for (size_t h : thread) {
          if (!state.host_free(h) || !input.host.nodes[h].rf_id) continue;
          bool name_differs = false;
          const int64_t id = static_cast<int64_t>(*input.host.nodes[h].rf_id) + *global_reference;
          static_cast<void>(index_by_id.find(id, input.host.nodes[h], state, name_differs));
          if (name_differs) ++state.name_mismatches;
        }
      }
    }
    return outcome;
  }

 private:
  static std::vector<Candidate> top_offsets(
      const OpMatchInput& input, const std::vector<size_t>& free_ops,
      const std::unordered_map<std::string_view, std::vector<int64_t>>& ids_by_name,
      std::optional<int64_t> reference) {
    std::map<std::string_view, std::vector<int64_t>> rf_ids_by_name;
    for (size_t h : free_ops) {
      const auto& node = input.host.nodes[h];
      rf_ids_by_name[node.name].push_back(static_cast<int64_t>(*node.rf_id));
    }
    // Rarest names first: they say the most about the offset per pair.
    std::vector<std::pair<size_t, std::string_view>> names;
    for (const auto& [name, rf_ids] : rf_ids_by_name) {
      const auto it = ids_by_name.find(name);
      if (it == ids_by_name.end()) continue;
      names.push_back({rf_ids.size() * it->second.size(), name});
    }
    std::sort(names.begin(), names.end());
    OffsetCounter histogram;
    size_t pairs = 0;
    for (const auto& [cost, name] : names) {
      if (pairs > 0 && pairs + cost > kPairBudget) break;
      pairs += cost;
      const std::vector<int64_t>& ext_ids = ids_by_name.at(name);
      for (int64_t rf : rf_ids_by_name[name]) {
        for (int64_t ext : ext_ids) histogram.add(ext - rf);
      }
    }
    // Any order: sort_candidates orders them totally.
    std::vector<Candidate> candidates;
    histogram.for_each([&candidates](int64_t offset, size_t count) { candidates.push_back({offset, count}); });
    // The histogram is only a shortlist: the exact score decides.
    sort_candidates(candidates, reference);
    if (candidates.size() > kCandidates) candidates.resize(kCandidates);
    return candidates;
  }

  // Where the candidate's first hit falls in time relative to the ops
  // already paired (see Candidate).
  static void place_in_time(const OpMatchInput& input, const OpMatchState& state, const ExternalIdIndex& index,
                            const std::vector<size_t>& free_ops, const std::map<uint64_t, int64_t>& matched_ts_by_rf,
                            Candidate& candidate) {
    for (size_t h : free_ops) {
      bool name_differs = false;
      const auto& node = input.host.nodes[h];
      const size_t e = index.find(static_cast<int64_t>(*node.rf_id) + candidate.offset, node, state, name_differs);
      if (e == kNoMatch) continue;
      const int64_t ts = input.device.events[e].ts_ns;
      const auto next = matched_ts_by_rf.upper_bound(*node.rf_id);
      const bool has_prev = next != matched_ts_by_rf.begin();
      const int64_t prev_ts = has_prev ? std::prev(next)->second : 0;
      candidate.in_time_order = (!has_prev || prev_ts <= ts) && (next == matched_ts_by_rf.end() || ts <= next->second);
      if (has_prev) {
        candidate.gap_ns = ts > prev_ts ? ts - prev_ts : prev_ts - ts;
      } else if (next != matched_ts_by_rf.end()) {
        candidate.gap_ns = ts > next->second ? ts - next->second : next->second - ts;
      }
      return;
    }
  }

  // Best first: higher score, then in time order, then the smallest time
  // gap, then closer to `reference`, then smaller.
  static void sort_candidates(std::vector<Candidate>& candidates, std::optional<int64_t> reference) {
    const int64_t ref = reference.value_or(0);
    auto distance = [ref](int64_t offset) { return offset > ref ? offset - ref : ref - offset; };
    std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.in_time_order != b.in_time_order) return a.in_time_order;
      if (a.gap_ns != b.gap_ns) return a.gap_ns < b.gap_ns;
      if (distance(a.offset) != distance(b.offset)) return distance(a.offset) < distance(b.offset);
      return a.offset < b.offset;
    });
  }

  static size_t score(const OpMatchInput& input, const OpMatchState& state, const ExternalIdIndex& index,
                      const std::vector<size_t>& free_ops, int64_t offset) {
    size_t hits = 0;
    for (size_t h : free_ops) {
      bool name_differs = false;
      const auto& node = input.host.nodes[h];
      if (index.find(static_cast<int64_t>(*node.rf_id) + offset, node, state, name_differs) != kNoMatch) ++hits;
    }
    return hits;
  }
};

}  // namespace

std::unique_ptr<OpMatcher> make_external_id_offset_matcher() {
  return std::make_unique<ExternalIdOffsetMatcher>();
}

}  // namespace snr::et_convert
