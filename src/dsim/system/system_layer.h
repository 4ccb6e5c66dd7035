// The system layer of every NPU, in flat arrays: collectives are split into
// chunks (streams) that walk through per-dimension phases; each dimension
// has one queue that runs at most active-chunks-per-dimension streams, in
// LIFO or FIFO priority order; messages are matched to receives by
// (destination, source, tag, size), in order, as ASTRA-sim's front end does.
// A stream's current phase is one algorithm's state machine held by value
// (std::variant: no virtual call or allocation per packet).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "dsim/config/network_config.h"
#include "dsim/config/system_config.h"
#include "dsim/network/network.h"
#include "dsim/system/collective.h"
#include "dsim/system/custom_collective.h"
#include "dsim/system/direct.h"
#include "dsim/system/double_binary_tree.h"
#include "dsim/system/halving_doubling.h"
#include "dsim/system/message_matcher.h"
#include "dsim/system/ring.h"

namespace snr::dsim {

// The workload above the system layer: told when an operation's
// communication completes, and handed the events of its own kinds
// (kComputeDone, kNodeReady) by the main loop.
class SystemClient {
 public:
  virtual ~SystemClient() = default;
  virtual void communication_finished(NpuId npu, uint64_t node_index) = 0;
  virtual void handle(const Event& event) = 0;
};

struct CollectiveRequest {
  NpuId npu = 0;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  uint64_t bytes = 0;
  std::vector<bool> involved_dimensions;        // empty: all
  const std::vector<uint32_t>* group = nullptr;  // communicator group, or nullptr
  uint32_t group_index = 0;
  uint64_t node_index = 0;
};

struct SystemTotals {
  uint64_t messages_sent = 0;
  uint64_t bytes_sent = 0;
  uint64_t streams_run = 0;
};

class SystemLayer final : public PhaseActions, public NetworkHost {
 public:
  // `custom` holds the custom all-reduce programs when the system
  // configuration names one (all-reduce-implementation-custom).
  SystemLayer(const SystemConfig& system, const NetworkConfig& network, EventQueue& events, SystemClient& client,
              const CustomCollectives* custom = nullptr);
  ~SystemLayer() override;

  void set_network(NetworkBackend* network) { network_ = network; }

  void start_collective(const CollectiveRequest& request);
  void send_p2p(NpuId npu, NpuId dst, int64_t tag, uint64_t bytes, uint64_t node_index);
  void recv_p2p(NpuId npu, NpuId src, int64_t tag, uint64_t bytes, uint64_t node_index);

  // The simulator's main loop: runs events until none is left. Here, next
  // to the handlers, so that the per-message path compiles into one
  // function (the network backend's send is the one call left on it).
  void run();
  // Dispatch of one event of the system layer's or the network's kinds.
  void handle(const Event& event);

  // NetworkHost
  void message_arrived(MessageId message) override;

  // PhaseActions
  void send_and_post_recv(uint32_t stream, NpuId dst, NpuId src, uint64_t bytes) override;
  void send(uint32_t stream, NpuId dst, uint64_t bytes) override;
  void post_recv(uint32_t stream, NpuId src, uint64_t bytes) override;
  void process_packet(uint32_t stream, bool reduce, uint64_t bytes) override;
  void phase_finished(uint32_t stream) override;
  void custom_send(uint32_t stream, uint32_t step, NpuId dst, uint32_t tag, uint64_t bytes) override;
  void custom_recv(uint32_t stream, uint32_t step, NpuId src, uint32_t tag, uint64_t bytes) override;
  void custom_compute(uint32_t stream, uint32_t step, uint64_t ns) override;

  [[nodiscard]] const std::vector<uint64_t>& bytes_sent_per_npu() const { return bytes_sent_per_npu_; }
  [[nodiscard]] const SystemTotals& totals() const { return totals_; }
  [[nodiscard]] bool idle() const { return live_streams_ == 0 && matcher_.pending() == 0; }

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
  using Phase = std::variant<RingPhase, DirectPhase, HalvingDoublingPhase, DoubleBinaryTreePhase, CustomPhase>;
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
    // p2p and custom-collective messages: what completes at arrival (the
    // p2p send node, or stream << 32 | step of a custom send). Collective
    // streams: the receiver's matcher slot, generation << 32 | index.
    // Free messages: the next free one.
    uint64_t token = 0;
  };
  struct NpuState {
    std::vector<std::vector<uint32_t>> queue_streams;  // per queue, in priority order
    std::vector<uint32_t> running;                     // initialized streams per queue
    std::vector<uint32_t> tree_phases;  // per queue: double-binary-tree phases begun (tree alternation)
    uint32_t next_tag = 0;
    int64_t priority_counter = 0;
  };

  // Tag namespaces: collective streams use their stream tag, workload
  // send/recv nodes their Chakra tag, custom collectives (stream tag, node tag).
  static constexpr uint64_t kP2pTagBit = uint64_t{1} << 63;
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
  // Arrival of a p2p or custom-collective message (off the collective path).
  [[gnu::noinline]] void tagged_message_arrived(MessageId message_id);
  uint32_t cached_slot(SlotCache& cache, const MatchKey& key, NpuId peer) {
    if (cache.generation != matcher_.generation() || cache.peer != peer || cache.bytes != key.bytes) {
      cache.index = matcher_.slot_of(key);
      cache.generation = matcher_.generation();
      cache.peer = peer;
      cache.bytes = key.bytes;
    }
    return cache.index;
  }
  Phase make_phase(NpuId npu, const PhasePlan& plan);
  void fill_phase_rings(Stream& stream, const CollectiveRequest& request);
  [[nodiscard]] uint64_t reduction_ns(uint64_t bytes);
  [[nodiscard]] const std::vector<CollectiveImplementation>& implementations(CollectiveKind kind) const;

  SystemConfig system_;
  NetworkConfig network_config_;
  DimensionLayout layout_;
  EventQueue& events_;
  SystemClient& client_;
  NetworkBackend* network_ = nullptr;
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
  std::vector<uint64_t> bytes_sent_per_npu_;
  SystemTotals totals_;
  uint64_t live_streams_ = 0;
  uint64_t reduction_cached_bytes_ = UINT64_MAX;  // last reduction size and its time
  uint64_t reduction_cached_ns_ = 0;
};

}  // namespace snr::dsim
