// Point-to-point messages of the workload's COMM_SEND / COMM_RECV nodes:
// a send completes when its message arrives, a receive when a message with
// the same (destination, source, tag, size) has arrived, in order on both
// sides (ASTRA-sim's front-end rule, kept apart from the collectives' tags).
// One handler on the event loop: arrivals of its own messages, and
// receives matched by an earlier arrival.
#pragma once

#include <cstdint>
#include <vector>

#include "dsim/core/event_loop.h"
#include "dsim/network/network.h"
#include "dsim/system/collective_engine.h"
#include "dsim/system/message_matcher.h"

namespace snr::dsim {

class PointToPoint final : public EventHandler {
 public:
  PointToPoint(EventLoop& loop, NetworkBackend& backend, SystemClient& client, TrafficCounters& traffic);

  // `node_index` is the workload's node, handed back on completion.
  void send(NpuId npu, NpuId dst, int64_t tag, uint64_t bytes, uint64_t node_index);
  void recv(NpuId npu, NpuId src, int64_t tag, uint64_t bytes, uint64_t node_index);

  void handle(const Event& event) override;
  [[nodiscard]] bool idle() const { return matcher_.pending() == 0; }

  // A receive found its message already there: it completes as an event
  // at the same time, after what is already scheduled.
  struct RecvMatched {
    static constexpr uint8_t kKind = 1;  // kind 0 is MessageArrived
    uint64_t node_index;
    NpuId npu;
  };

 private:
  struct Message {
    NpuId src = 0;
    NpuId dst = 0;
    uint64_t bytes = 0;
    uint64_t tag = 0;
    uint64_t send_node = 0;  // free messages: the next free one
  };
  MessageId allocate_message();

  EventLoop& loop_;
  NetworkBackend& network_;
  SystemClient& client_;
  TrafficCounters& traffic_;
  HandlerId handler_ = 0;
  std::vector<Message> messages_;
  static constexpr MessageId kNoMessage = UINT32_MAX;
  MessageId free_message_ = kNoMessage;
  MessageMatcher matcher_;
};

}  // namespace snr::dsim
