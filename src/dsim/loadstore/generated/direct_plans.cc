// Direct (all-pairs): every GPU exchanges its chunk for each peer with that
// peer in one step, all peers at once. All-to-all sends block p of its
// input to GPU p; all-gather sends its whole input to every peer.
//
// Work is cut into channels, as MSCCL++ plans give a threadblock per peer:
// a channel is (peer, lane), with lanes = max(1, workgroups / (N-1)) slices
// of each chunk, and channel i = (distance-1) + (N-1) * lane runs on
// workgroup i mod workgroups. A channel's semaphores pair it with the
// reverse channel on the peer, so with one channel per workgroup every
// fenced signal waits only for its own channel's stores (a workgroup's
// fenced releases also wait for each other, one round trip each).
// Fewer workgroups than peers put several channels on one workgroup.
#include <algorithm>
#include <string_view>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

struct Channel {
  uint32_t peer = 0;
  uint32_t lane = 0;
  uint32_t peer_workgroup = 0;  // the workgroup running the reverse channel on the peer
};

class DirectPlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "direct"; }
  std::string_view summary() const override {
    return "direct: one step, every GPU exchanges its chunk for each peer with that peer";
  }
  std::vector<std::string_view> collectives() const override { return {kAllToAll, kAllGather}; }
  bool supports(Transfer, Protocol protocol) const override { return protocol != Protocol::kLL128; }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "every GPU talks to the N-1 others at once"},
            {"workgroups", "per GPU; channels (peer, lane) are dealt round-robin to them, "
                           "max(1, workgroups / (N-1)) lanes per peer"},
            {"buffer_bytes", "one chunk per GPU: the block for each peer (all-to-all) or the input (all-gather)"},
            {"transfer", "put: stores into the peer's output; get: loads from the peer's input"},
            {"protocol", "Simple: semaphores per channel; LL: packets in a scratch slot per peer"}};
  }

  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    return options.buffer_bytes / options.gpus * (options.gpus - 1);
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus, workgroups = options.workgroups;
    const uint32_t lanes = std::max<uint32_t>(1, workgroups / (n - 1));
    const bool all_to_all = options.collective == kAllToAll;
    // LL: one packet slot per peer (put: what it receives, get: what it publishes).
    if (options.protocol == Protocol::kLL) b.set_scratch_bytes(uint64_t{n - 1} * b.chunk_bytes());
    auto workgroup_of = [&](uint32_t distance, uint32_t lane) {
      return static_cast<uint32_t>((uint64_t{distance - 1} + uint64_t{n - 1} * lane) % workgroups);
    };
    for (uint32_t me = 0; me < n; ++me) {
      // What GPU `from` sends to GPU `to`, and where the receiver keeps it.
      auto source = [&](uint32_t from, uint32_t to) { return b.chunk(from, Space::kInput, all_to_all ? to : 0); };
      auto packet_slot = [&](uint32_t owner, uint32_t from, uint32_t to) {
        return b.chunk(owner, Space::kScratch, (to + n - from - 1) % n, true);
      };
      for (uint32_t w = 0; w < workgroups; ++w) {
        std::vector<Channel> channels;
        for (uint32_t lane = 0; lane < lanes; ++lane) {
          for (uint32_t distance = 1; distance < n; ++distance) {
            if (workgroup_of(distance, lane) == w) {
              channels.push_back({(me + distance) % n, lane, workgroup_of(n - distance, lane)});
            }
          }
        }
        b.begin_workgroup(me, w);
        // Each step over every channel of this workgroup, in its own slice.
        auto each = [&](auto&& emit) {
          for (const Channel& c : channels) {
            b.select_slice(c.lane, lanes);
            emit(c);
          }
        };
        // Semaphore ops run on wavefront 0 only: a wait holds the whole
        // workgroup back until it is over, and a signal after transfers first
        // lets every wavefront finish its own, so that it covers all of them.
        auto wait = [&](std::string_view purpose) {
          b.await(purpose, 1);
          b.hold(purpose);
        };
        auto signal_after_transfers = [&](const Channel& c, std::string_view purpose, bool relaxed) {
          b.hold("transfers issued");
          b.notify(c.peer, c.peer_workgroup, purpose, relaxed);
        };
        auto copy_own = [&] {
          b.select_slice(w, workgroups);
          b.copy(source(me, me), b.chunk(me, Space::kOutput, me), "copy own");
        };
        const bool simple = options.protocol == Protocol::kSimple;
        if (options.transfer == Transfer::kPut) {
          if (simple) each([&](const Channel& c) { b.notify(c.peer, c.peer_workgroup, "free", true); });
          copy_own();
          if (simple) each([&](const Channel&) { wait("free"); });
          each([&](const Channel& c) {
            b.copy(source(me, c.peer),
                   simple ? b.chunk(c.peer, Space::kOutput, me) : packet_slot(c.peer, me, c.peer), "put");
          });
          if (simple) {
            each([&](const Channel& c) { signal_after_transfers(c, "data", false); });
            each([&](const Channel&) { wait("data"); });
          } else {
            each([&](const Channel& c) {
              b.copy(packet_slot(me, c.peer, me), b.chunk(me, Space::kOutput, c.peer), "unpack");
            });
          }
        } else {
          // The inputs are written before the kernel starts, so readiness
          // and completion need no fence: relaxed signals, no round trips.
          if (simple) {
            each([&](const Channel& c) { b.notify(c.peer, c.peer_workgroup, "ready", true); });
          } else {
            each([&](const Channel& c) { b.copy(source(me, c.peer), packet_slot(me, me, c.peer), "publish"); });
          }
          copy_own();
          if (simple) each([&](const Channel&) { wait("ready"); });
          each([&](const Channel& c) {
            b.copy(simple ? source(c.peer, me) : packet_slot(c.peer, c.peer, me), b.chunk(me, Space::kOutput, c.peer),
                   "get");
          });
          if (simple) {
            each([&](const Channel& c) { signal_after_transfers(c, "done", true); });
            each([&](const Channel&) { wait("done"); });
          }
        }
        b.end_workgroup();
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_direct_plan_algorithm() { return std::make_unique<DirectPlanAlgorithm>(); }

}  // namespace snr::dsim::loadstore
