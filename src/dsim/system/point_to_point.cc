#include "dsim/system/point_to_point.h"

namespace snr::dsim {

PointToPoint::PointToPoint(EventLoop& loop, NetworkBackend& backend, SystemClient& client, TrafficCounters& traffic)
    : loop_(loop), network_(backend), client_(client), traffic_(traffic) {
  handler_ = loop.add_handler("system layer (point-to-point)", *this);
}

MessageId PointToPoint::allocate_message() {
  if (free_message_ != kNoMessage) {
    const MessageId id = free_message_;
    free_message_ = static_cast<MessageId>(messages_[id].send_node);
    return id;
  }
  messages_.emplace_back();
  return static_cast<MessageId>(messages_.size() - 1);
}

void PointToPoint::send(NpuId npu, NpuId dst, int64_t tag, uint64_t bytes, uint64_t node_index) {
  const MessageId id = allocate_message();
  messages_[id] = Message{npu, dst, bytes, static_cast<uint64_t>(tag), node_index};
  traffic_.count(npu, bytes);
  network_.send(id, npu, dst, bytes, handler_);
}

void PointToPoint::recv(NpuId npu, NpuId src, int64_t tag, uint64_t bytes, uint64_t node_index) {
  if (matcher_.post(MatchKey{npu, src, static_cast<uint64_t>(tag), bytes}, node_index)) {
    loop_.schedule(loop_.now(), handler_, RecvMatched{node_index, npu});
  }
}

void PointToPoint::handle(const Event& event) {
  if (event.kind == RecvMatched::kKind) {
    const auto matched = event.get<RecvMatched>();
    client_.communication_finished(matched.npu, matched.node_index);
    return;
  }
  if (event.kind != MessageArrived::kKind) throw_unknown_event(loop_.handler_name(handler_), event);
  const MessageId id = event.get<MessageArrived>().message;
  // A copy: the callbacks below may send (and grow messages_).
  const Message message = messages_[id];
  messages_[id].send_node = free_message_;
  free_message_ = id;
  client_.communication_finished(message.src, message.send_node);
  uint64_t waiter = 0;
  if (matcher_.arrive(MatchKey{message.dst, message.src, message.tag, message.bytes}, waiter)) {
    client_.communication_finished(message.dst, waiter);
  }
}

}  // namespace snr::dsim
