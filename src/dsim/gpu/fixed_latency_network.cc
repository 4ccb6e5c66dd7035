#include "dsim/gpu/fixed_latency_network.h"

#include "common/error.h"

namespace snr::dsim::gpu {

namespace {
struct Arrive {
  static constexpr uint8_t kKind = 1;
  uint32_t tag;
};
struct Complete {
  static constexpr uint8_t kKind = 2;
  uint32_t tag;
};
}  // namespace

FixedLatencyNetwork::FixedLatencyNetwork(EventLoop& loop, TimePs local_one_way_ps, TimePs remote_one_way_ps)
    : loop_(loop),
      handler_(loop.add_handler("fixed-latency network", *this)),
      local_ps_(local_one_way_ps),
      remote_ps_(remote_one_way_ps) {}

void FixedLatencyNetwork::send(uint32_t tag, const Access& access) {
  if (tag >= remote_.size()) remote_.resize(tag + 1, 0);
  remote_[tag] = access.dst_gpu != access.src_gpu;
  const TimePs departure_ps = loop_.now() + TimePs{access.lines - 1} * line_interval_ps_;
  loop_.schedule(departure_ps + one_way(tag), handler_, Arrive{tag});
}

void FixedLatencyNetwork::respond(uint32_t tag) {
  loop_.schedule(loop_.now() + one_way(tag), handler_, Complete{tag});
}

void FixedLatencyNetwork::handle(const Event& event) {
  if (sink_ == nullptr) throw Error("fixed-latency network: no GPU model attached");
  if (event.kind == Arrive::kKind) {
    const uint32_t tag = event.get<Arrive>().tag;
    if (sink_->arrived(tag)) respond(tag);
  } else if (event.kind == Complete::kKind) {
    sink_->completed(event.get<Complete>().tag);
  } else {
    throw_unknown_event("fixed-latency network", event);
  }
}

}  // namespace snr::dsim::gpu
