// The collective engine of every NPU, in flat arrays: collectives are split
// into chunks (streams) that walk through per-dimension phases; each
// dimension has one queue that runs at most active-chunks-per-dimension
// streams, in LIFO or FIFO priority order; messages are matched to receives
// by (destination, source, tag, size), in order, as ASTRA-sim's front end
// does. A stream's current phase is one algorithm's state machine held by
// value (std::variant: no virtual call or allocation per packet), built by
// the algorithm the configuration names (system/algorithm_registry.h).
//
// The engine is one handler on the event loop: its own events (endpoint
// delay, reduction, deferred receive, custom steps) and the arrivals of the
// messages it sent. It uses a network backend, and is not its host: the
// backend only schedules MessageArrived events for the engine's handler.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <memory>
#include <variant>
#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/config/system_config.h"
#include "dsim/network/network.h"
#include "dsim/system/algorithm_registry.h"
#include "dsim/system/collective.h"
#include "dsim/system/message_matcher.h"

namespace snr::dsim {

// The workload above the system layer: told when an operation's
// communication completes.
class SystemClient {
 public:
  virtual ~SystemClient() = default;
  virtual void communication_finished(NpuId npu, uint64_t node_index) = 0;
};

// Messages sent, per NPU and in total (collectives and point-to-point).
struct TrafficCounters {
  std::vector<uint64_t> bytes_sent_per_npu;
  uint64_t messages_sent = 0;
  void count(NpuId src, uint64_t bytes) {
    bytes_sent_per_npu[src] += bytes;
    ++messages_sent;
  }
};

struct CollectiveRequest {
  NpuId npu = 0;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t bytes = 0;
  std::vector<bool> involved_dimensions;        // empty: all
  const std::vector<uint32_t>* group = nullptr;  // communicator group, or nullptr
  uint32_t group_index = 0;
  uint64_t node_index = 0;
  uint64_t chakra_id = 0;  // the workload node's id (per-node custom collectives are keyed by it)
  int64_t root = -1;  // rooted collectives: the root NPU (-1: the group's first member, or NPU 0)
};

class CollectiveEngine final : public PhaseActions, public EventHandler {
 public:
  // `custom` holds the custom collectives' programs when the system
  // configuration names any (custom_collective.h). Registers
  // the engine's handler on `loop`.
  CollectiveEngine(const SystemConfig& system, const NetworkConfig& network, EventLoop& loop,
                   NetworkBackend& backend, SystemClient& client, TrafficCounters& traffic,
                   const CustomCollectives* custom = nullptr);
  ~CollectiveEngine() override;

  void start_collective(const CollectiveRequest& request);

  // The engine's events, and the ones that follow while they are the
  // engine's too (see core/event_loop.h): the per-message path compiles
  // into this one function (the backend's send is the one call left on it).
  void handle(const Event& event) override;

  // PhaseActions
  void send_and_post_recv(uint32_t stream, NpuId dst, NpuId src, uint64_t bytes) override;
  void send(uint32_t stream, NpuId dst, uint64_t bytes) override;
  void post_recv(uint32_t stream, NpuId src, uint64_t bytes) override;
  void process_packet(uint32_t stream, bool reduce, uint64_t bytes) override;
  void phase_finished(uint32_t stream) override;
  void custom_send(uint32_t stream, uint32_t step, NpuId dst, uint32_t tag, uint64_t bytes) override;
  void custom_recv(uint32_t stream, uint32_t step, NpuId src, uint32_t tag, uint64_t bytes) override;
  void custom_compute(uint32_t stream, uint32_t step, uint64_t ns) override;

  // The first compute device an algorithm's run state offers, or nullptr.
  [[nodiscard]] ComputeDevice* compute_device() const;
  // The algorithms' run states' stall reports (AlgorithmRun), joined.
  [[nodiscard]] std::string stall_report() const;
  // Where this run and ASTRA-sim read the configuration differently: a
  // *-implementation list shorter than the network's dimensions, which
  // here runs its last algorithm in the remaining ones.
  [[nodiscard]] std::vector<std::string> notes() const;
  [[nodiscard]] uint64_t streams_run() const { return streams_run_; }
  [[nodiscard]] bool idle() const { return live_streams_ == 0 && matcher_.pending() == 0; }

  // The engine's own events (kind 0 is MessageArrived, network/network.h).
  struct PacketReady {  // a packet passed the endpoint (ASTRA-sim's MemBus)
    static constexpr uint8_t kKind = 1;
    uint64_t bytes;
    uint32_t stream;
    bool reduce;  // a local reduction of `bytes` follows
  };
  struct ReductionDone {
    static constexpr uint8_t kKind = 2;
    uint32_t stream;
  };
  struct DeferredRecv {  // a receive matched a message that had already arrived
    static constexpr uint8_t kKind = 3;
    uint32_t stream;
  };
  struct CustomStepDone {
    static constexpr uint8_t kKind = 4;
    uint32_t stream;
    uint32_t step;
  };

 private:
  static constexpr size_t kMaxPhases = 16;
  // A stream's matcher slot for one (peer, size): its sends and receives
  // repeat the same key, so the hash lookup is done once per key and
  // matcher generation.
  struct SlotCache {
    NpuId peer = 0;
    uint32_t index = 0;
    uint32_t generation = UINT32_MAX;  // none yet
    uint64_t bytes = 0;
  };
  struct Stream {
    NpuId npu = 0;
    uint32_t dataset = 0;
    uint32_t tag = 0;
    int64_t priority = 0;
    std::array<PhasePlan, kMaxPhases> phases{};
    uint8_t phase_count = 0;
    uint8_t current_phase = 0;
    int16_t queue = -1;
    bool initialized = false;
    TimeNs endpoint_delay_ns = 0;  // of the current phase's packets
    SlotCache send_slot;  // the receiver's key of this stream's last send
    SlotCache recv_slot;  // this stream's key of its last receive
    Phase phase;
  };
  struct Dataset {
    NpuId npu = 0;
    uint32_t streams_left = 0;
    uint64_t node_index = 0;
  };
  struct Message {
    NpuId src = 0;
    NpuId dst = 0;
    uint64_t bytes = 0;
    uint64_t tag = 0;
    // Collective streams: the receiver's matcher slot, generation << 32 |
    // index. Custom-collective messages (kCustomTagBit in the tag): the
    // sending step that completes at arrival, stream << 32 | step.
    // Free messages: the next free one.
    uint64_t token = 0;
  };
  struct NpuState {
    std::vector<std::vector<uint32_t>> queue_streams;  // per queue, in priority order
    std::vector<uint32_t> running;                     // initialized streams per queue
    // Phases planned, per (algorithm, queue): PhasePlan::earlier_in_queue.
    std::vector<uint32_t> phases_planned;
    // Stream tags: one counter for collectives over every NPU and one per
    // communicator group (by group index), as ASTRA-sim numbers a group's
    // streams on its own, so that NPUs in different sets of groups still
    // agree on each group's tags.
    uint32_t next_tag = 0;
    std::vector<uint32_t> next_group_tag;
    int64_t priority_counter = 0;
  };

  // Tag namespaces: collective streams use their stream tag, custom
  // collectives (stream tag, node tag).
  static constexpr uint64_t kCustomTagBit = uint64_t{1} << 62;

  uint32_t allocate_stream();
  void enter_next_phase(uint32_t stream_id);
  void insert_by_priority(std::vector<uint32_t>& queue, uint32_t stream_id);
  void init_waiting_streams(NpuId npu, uint16_t queue);
  void init_stream(uint32_t stream_id);
  void deliver_to_stream(uint32_t stream_id);
  void packet_ready(uint32_t stream_id);
  void custom_step_done(uint32_t stream_id, uint32_t step);
  MessageId allocate_message() {
    if (free_message_ != kNoMessage) {
      const MessageId id = free_message_;
      free_message_ = static_cast<MessageId>(messages_[id].token);
      return id;
    }
    messages_.emplace_back();
    return static_cast<MessageId>(messages_.size() - 1);
  }
  void free_message(MessageId id) {
    messages_[id].token = free_message_;
    free_message_ = id;
  }
  void handle_one(uint8_t kind, EventData data);
  void message_arrived(MessageId message);
  // Arrival of a custom-collective message (off the collective path).
  [[gnu::noinline]] void custom_message_arrived(MessageId message_id);
  // The key is built only on a miss (out of line), so that a hit does
  // not store it first.
  uint32_t cached_slot(SlotCache& cache, NpuId dst, NpuId src, uint64_t tag, uint64_t bytes, NpuId peer) {
    if (cache.generation != matcher_.generation() || cache.peer != peer || cache.bytes != bytes) {
      refill_slot(cache, MatchKey{dst, src, tag, bytes}, peer);
    }
    return cache.index;
  }
  [[gnu::noinline]] void refill_slot(SlotCache& cache, const MatchKey& key, NpuId peer) {
    cache.index = matcher_.slot_of(key);
    cache.generation = matcher_.generation();
    cache.peer = peer;
    cache.bytes = key.bytes;
  }
  Phase make_phase(NpuId npu, const PhasePlan& plan);
  void fill_phase_rings(Stream& stream, const CollectiveRequest& request, const CustomPrograms* custom);
  void count_planned_phases(NpuId npu, Stream& stream);
  [[nodiscard]] uint64_t reduction_ns(uint64_t bytes) {
    return bytes == reduction_cached_bytes_ ? reduction_cached_ns_ : reduction_ns_uncached(bytes);
  }
  [[gnu::noinline]] uint64_t reduction_ns_uncached(uint64_t bytes);
  [[nodiscard]] const std::vector<CollectiveImplementation>& implementations(CollectiveKind kind) const;

  SystemConfig system_;
  NetworkConfig network_config_;
  DimensionLayout layout_;
  const CollectiveAlgorithmSpec* default_algorithm_;  // ring: lists that are not given
  const CollectiveAlgorithmSpec* custom_algorithm_;   // all-reduce-implementation-custom
  const CollectiveAlgorithmSpec* rooted_algorithm_;   // broadcast, reduce, gather, scatter
  uint32_t extended_lists_ = 0;  // bit per CollectiveKind: its list ran beyond its length
  EventLoop& loop_;
  EventQueue& events_;
  NetworkBackend& network_;
  SystemClient& client_;
  TrafficCounters& traffic_;
  HandlerId handler_ = 0;
  std::vector<NpuState> npus_;
  std::vector<Stream> streams_;
  std::vector<uint32_t> free_streams_;
  std::vector<Dataset> datasets_;
  std::vector<uint32_t> free_datasets_;
  std::vector<Message> messages_;
  static constexpr MessageId kNoMessage = UINT32_MAX;
  MessageId free_message_ = kNoMessage;
  MessageMatcher matcher_;
  const CustomCollectives* custom_ = nullptr;
  // Workload node ids whose per-node custom program ran (for the note on
  // ids the workload does not have).
  std::unordered_set<uint64_t> per_node_custom_run_;
  // Run state of the configured algorithms that keep one, by spec index.
  std::vector<std::unique_ptr<AlgorithmRun>> runs_;
  uint64_t streams_run_ = 0;
  uint64_t live_streams_ = 0;
  uint64_t reduction_cached_bytes_ = UINT64_MAX;  // last reduction size and its time
  uint64_t reduction_cached_ns_ = 0;
};

}  // namespace snr::dsim
