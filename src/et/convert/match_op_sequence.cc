// Aligns a host thread's op-name sequence with one Kineto thread's.
//
// Both sides list a thread's ops in start order (the host by rf_id/id, which
// the observer assigns when an op starts; Kineto by ts, outer first), so the
// free ops between two matched pairs ("anchors") on the host side correspond
// to the free Kineto ops between the same anchors. Each gap is aligned
// greedily: equal names pair; otherwise the shorter skip within kLookahead
// ops on either side is taken, else both ops stay unmatched. The host thread
// follows the Kineto thread that holds most of its anchors. A gap's pairs are
// kept only when at least half of them continue a run of pairs (the gap's
// anchor counts as one).
//
// A host thread with no anchor at all is aligned only when one placement is
// convincing: the start is searched at the occurrences of its rarest early
// op, and accepted when at least half of the thread's ops pair in unbroken
// steps (a pair right after a pair). Chance agreement of common names
// (aten::empty, aten::view) needs skips and does not reach that.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "et/convert/op_matching.h"

namespace snr::et_convert {

namespace {

constexpr size_t kLookahead = 16;
constexpr size_t kMaxStarts = 256;
constexpr size_t kStartProbeOps = 256;
constexpr size_t kEarlyOps = 16;

struct AlignResult {
  std::vector<std::pair<size_t, size_t>> pairs;  // (host node, event)
  size_t unbroken = 0;
};

class SequenceAligner {
 public:
  SequenceAligner(const OpMatchInput& input) : input_(input) {}

  // Greedy alignment of host ops `h` with events `k`, both in the order to walk.
  AlignResult align(const std::vector<size_t>& h, const std::vector<size_t>& k, size_t host_limit) const {
    AlignResult result;
    size_t i = 0;
    size_t j = 0;
    // The gap's start is an anchor: a pair there continues it.
    bool previous_paired = true;
    const size_t host_end = std::min(h.size(), host_limit);
    while (i < host_end && j < k.size()) {
      if (same(h[i], k[j])) {
        result.pairs.push_back({h[i], k[j]});
        if (previous_paired) ++result.unbroken;
        previous_paired = true;
        ++i;
        ++j;
        continue;
      }
      previous_paired = false;
      size_t skip_k = 0;
      for (size_t d = 1; d <= kLookahead && j + d < k.size(); ++d) {
        if (same(h[i], k[j + d])) {
          skip_k = d;
          break;
        }
      }
      size_t skip_h = 0;
      for (size_t d = 1; d <= kLookahead && i + d < host_end; ++d) {
        if (same(h[i + d], k[j])) {
          skip_h = d;
          break;
        }
      }
      if (skip_k != 0 && (skip_h == 0 || skip_k <= skip_h)) {
        j += skip_k;
      } else if (skip_h != 0) {
        i += skip_h;
      } else {
        ++i;
        ++j;
      }
    }
    return result;
  }

 private:
  [[nodiscard]] bool same(size_t h, size_t e) const {
    return same_op_name(input_.host.nodes[h], input_.device.events[e]);
  }
  const OpMatchInput& input_;
};

class OpSequenceMatcher final : public OpMatcher {
 public:
  [[nodiscard]] std::string_view name() const override { return "op_sequence"; }

  MatcherOutcome run(const OpMatchInput& input, OpMatchState& state, uint8_t index) const override {
    MatcherOutcome outcome;
    const size_t events = input.device.events.size();
    std::vector<size_t> thread_of(events, kNoMatch);
    std::vector<size_t> position_of(events, kNoMatch);
    for (size_t t = 0; t < input.kineto_threads.size(); ++t) {
      for (size_t p = 0; p < input.kineto_threads[t].size(); ++p) {
        thread_of[input.kineto_threads[t][p]] = t;
        position_of[input.kineto_threads[t][p]] = p;
      }
    }
    const SequenceAligner aligner(input);
    for (const auto& thread : input.host_threads) {
      const bool any_free = std::any_of(thread.begin(), thread.end(), [&](size_t h) { return state.host_free(h); });
      if (!any_free) continue;
      // Anchors per Kineto thread.
      std::map<size_t, size_t> anchors_in;
      for (size_t h : thread) {
        if (!state.host_free(h)) ++anchors_in[thread_of[state.event_of_host[h]]];
      }
      size_t kt = kNoMatch;
      size_t best_count = 0;
      for (const auto& [t, count] : anchors_in) {
        if (t != kNoMatch && count > best_count) {
          kt = t;
          best_count = count;
        }
      }
      std::vector<std::pair<size_t, size_t>> anchors;  // (position in host thread, position in Kineto thread)
      bool virtual_anchor = false;
      if (kt == kNoMatch) {
        const auto placed = place_unanchored(input, state, aligner, thread, kt);
        if (!placed) continue;
        anchors.push_back(*placed);
        virtual_anchor = true;
      } else {
        size_t last_k = 0;
        bool any = false;
        for (size_t p = 0; p < thread.size(); ++p) {
          const size_t h = thread[p];
          if (state.host_free(h) || thread_of[state.event_of_host[h]] != kt) continue;
          const size_t k = position_of[state.event_of_host[h]];
          if (any && k <= last_k) continue;  // keep anchors monotonic on both sides
          anchors.push_back({p, k});
          last_k = k;
          any = true;
        }
      }
      const auto& kthread = input.kineto_threads[kt];
      size_t matched = 0;
      // A gap's alignment counts only when most pairs continue a run: greedy
      // skipping over common names pairs unrelated sequences too, in
      // isolated pairs.
      auto take = [&](const AlignResult& result) {
        if (2 * result.unbroken < result.pairs.size()) return;
        for (const auto& [h, e] : result.pairs) {
          if (!state.host_free(h) || !state.event_free(e)) continue;
          state.pair(h, e, index);
          ++matched;
        }
      };
      auto free_hosts = [&](size_t from, size_t to, bool reverse) {
        std::vector<size_t> out;
        for (size_t p = from; p < to; ++p) {
          if (state.host_free(thread[p])) out.push_back(thread[p]);
        }
        if (reverse) std::reverse(out.begin(), out.end());
        return out;
      };
      auto free_events = [&](size_t from, size_t to, bool reverse) {
        std::vector<size_t> out;
        for (size_t p = from; p < to && p < kthread.size(); ++p) {
          if (state.event_free(kthread[p])) out.push_back(kthread[p]);
        }
        if (reverse) std::reverse(out.begin(), out.end());
        return out;
      };
      // A virtual anchor is itself unmatched: it opens the suffix alignment.
      const size_t first_h = anchors.front().first;
      const size_t first_k = anchors.front().second;
      if (virtual_anchor) {
        take(aligner.align(free_hosts(first_h, thread.size(), false), free_events(first_k, kthread.size(), false),
                           thread.size()));
      } else {
        take(aligner.align(free_hosts(0, first_h, true), free_events(0, first_k, true), thread.size()));
        for (size_t a = 0; a + 1 < anchors.size(); ++a) {
          take(aligner.align(free_hosts(anchors[a].first + 1, anchors[a + 1].first, false),
                             free_events(anchors[a].second + 1, anchors[a + 1].second, false), thread.size()));
        }
        take(aligner.align(free_hosts(anchors.back().first + 1, thread.size(), false),
                           free_events(anchors.back().second + 1, kthread.size(), false), thread.size()));
      }
      if (virtual_anchor) {
        take(aligner.align(free_hosts(0, first_h, true), free_events(0, first_k, true), thread.size()));
      }
      if (matched == 0) continue;
      outcome.matched += matched;
      const auto& first_event = input.device.events[kthread.front()];
      outcome.notes.push_back(fmt::format("host thread {}: {} op(s) aligned with Kineto pid {} tid {}{}",
                                          input.host.nodes[thread.front()].tid, matched, first_event.pid,
                                          first_event.tid, virtual_anchor ? " (no id matched; placed by names)" : ""));
    }
    return outcome;
  }

 private:
  // For a thread without anchors: the (host position, Kineto position) to
  // start from and the Kineto thread, or nullopt when no placement convinces.
  static std::optional<std::pair<size_t, size_t>> place_unanchored(const OpMatchInput& input,
                                                                   const OpMatchState& state,
                                                                   const SequenceAligner& aligner,
                                                                   const std::vector<size_t>& thread,
                                                                   size_t& kineto_thread) {
    std::vector<size_t> free_host;
    for (size_t h : thread) {
      if (state.host_free(h)) free_host.push_back(h);
    }
    if (free_host.size() < 2) return std::nullopt;
    size_t best_unbroken = 0;
    std::optional<std::pair<size_t, size_t>> best;
    for (size_t t = 0; t < input.kineto_threads.size(); ++t) {
      const auto& kthread = input.kineto_threads[t];
      std::unordered_map<std::string_view, std::vector<size_t>> positions;
      for (size_t p = 0; p < kthread.size(); ++p) {
        if (state.event_free(kthread[p])) positions[input.device.events[kthread[p]].name].push_back(p);
      }
      // The rarest name among the first ops starts the search.
      size_t start = kNoMatch;
      size_t fewest = 0;
      for (size_t q = 0; q < free_host.size() && q < kEarlyOps; ++q) {
        const auto it = positions.find(input.host.nodes[free_host[q]].name);
        if (it == positions.end()) continue;
        if (start == kNoMatch || it->second.size() < fewest) {
          start = q;
          fewest = it->second.size();
        }
      }
      if (start == kNoMatch) continue;
      const auto& starts = positions.at(input.host.nodes[free_host[start]].name);
      const std::vector<size_t> host_tail(free_host.begin() + static_cast<std::ptrdiff_t>(start), free_host.end());
      for (size_t s = 0; s < starts.size() && s < kMaxStarts; ++s) {
        std::vector<size_t> events;
        for (size_t p = starts[s]; p < kthread.size() && events.size() < 2 * kStartProbeOps; ++p) {
          if (state.event_free(kthread[p])) events.push_back(kthread[p]);
        }
        const AlignResult probe = aligner.align(host_tail, events, kStartProbeOps);
        if (probe.unbroken > best_unbroken) {
          best_unbroken = probe.unbroken;
          kineto_thread = t;
          size_t host_position = 0;
          while (thread[host_position] != free_host[start]) ++host_position;
          best = std::make_pair(host_position, starts[s]);
        }
      }
    }
    const size_t probed = std::min(free_host.size(), kStartProbeOps);
    if (!best || 2 * best_unbroken < probed) return std::nullopt;
    return best;
  }
};

}  // namespace

std::unique_ptr<OpMatcher> make_op_sequence_matcher() { return std::make_unique<OpSequenceMatcher>(); }

}  // namespace snr::et_convert
