#include "dsim/noc/noc_network.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace snr::dsim::noc {

namespace {


TimePs ns_to_ps(double ns) {
  return static_cast<TimePs>(std::llround(ns * 1000.0));
}
// std::ceil for non-negative values below 2^63 in a few instructions (the
// baseline x86-64 target has no rounding instruction; a hop computes one).
TimePs ceil_ps(double ps) {
  const auto whole = static_cast<TimePs>(ps);
  return static_cast<double>(whole) < ps ? whole + 1 : whole;
}
double ps_per_byte(double gib_per_s) {
  return 1e12 / (gib_per_s * 1073741824.0);
}

}  // namespace

const char* to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::kRouter: return "router";
    case LinkKind::kCu: return "cu";
    case LinkKind::kHbm: return "hbm";
    case LinkKind::kIo: return "io";
    case LinkKind::kScaleUp: return "scale_up";
    case LinkKind::kCount: break;
  }
  return "?";
}

NocNetwork::NocNetwork(const NocConfig& config, uint32_t gpus, EventLoop& loop)
    : config_(config),
      gpus_(gpus),
      loop_(loop),
      handler_(loop.add_handler("noc network", *this)),
      routing_(make_routing(config.routing)),
      arbiter_(make_arbiter(config.arbitration)) {
  if (gpus == 0) throw Error("noc network: no GPUs");
  gpu::use_picosecond_buckets(loop);
  routers_ = config.routers();
  cus_ = config.compute_units();
  const std::vector<uint32_t> hbm_routers = config.side_routers(config.hbm_sides);
  const std::vector<uint32_t> io_routers = config.side_routers(config.io_sides);
  hbm_ = static_cast<uint32_t>(hbm_routers.size()) * config.hbm_per_router;
  ios_ = static_cast<uint32_t>(io_routers.size()) * config.io_per_router;
  hbm_first_ = routers_ + cus_;
  io_first_ = hbm_first_ + hbm_;
  nodes_per_gpu_ = io_first_ + ios_;
  links_per_gpu_ = 4 * routers_ + 2 * (nodes_per_gpu_ - routers_);
  const uint64_t total_links = uint64_t{gpus} * links_per_gpu_ + 2ull * gpus * ios_;
  // Node ids are gpu << node_bits_ | local (the switch planes are GPU
  // `gpus`): a hop splits them with a shift and a mask.
  while ((uint32_t{1} << node_bits_) < nodes_per_gpu_) ++node_bits_;
  if (((uint64_t{gpus} + 1) << node_bits_) >= UINT32_MAX / 2 || total_links >= UINT32_MAX / 2) {
    throw Error(
        fmt::format("noc network: {} GPUs of {} endpoints are more than the model indexes", gpus, nodes_per_gpu_));
  }
  if (ios_ > 256) throw Error(fmt::format("noc network: {} I/O ports per GPU, more than 256", ios_));
  scale_up_first_ = gpus * links_per_gpu_;
  for (uint32_t c = 0; c < cus_; ++c) endpoint_router_.push_back(c / config.cus_per_router);
  for (uint32_t h = 0; h < hbm_; ++h) endpoint_router_.push_back(hbm_routers[h / config.hbm_per_router]);
  for (uint32_t p = 0; p < ios_; ++p) endpoint_router_.push_back(io_routers[p / config.io_per_router]);
  const LinkSpec* specs[] = {&config.router_link, &config.cu_link, &config.hbm_link, &config.io_link,
                             &config.scale_up_link};
  for (int k = 0; k < static_cast<int>(LinkKind::kCount); ++k) {
    ps_per_byte_[k] = ps_per_byte(specs[k]->bandwidth_gib_per_s);
    latency_ps_[k] = ns_to_ps(specs[k]->latency_ns);
    for (uint32_t bytes = 0; bytes <= kTabulatedBytes; ++bytes) {
      serialize_ps_[k][bytes] = ceil_ps(bytes * ps_per_byte_[k]);
    }
  }
  hbm_access_ps_ = ns_to_ps(config.hbm_access_latency_ns);
  if (config.scale_up_multicast) {
    stats_.planes.resize(ios_);
    reduce_free_ps_.assign(ios_, 0);
    reduce_ps_per_byte_ = ps_per_byte(config.switch_reduce.bandwidth_gib_per_s);
    reduce_latency_ps_ = ns_to_ps(config.switch_reduce.latency_ns);
  }
  links_.resize(total_links);
  fifo_ = config.arbitration == "fifo";
  mesh_step_.resize(size_t{routers_} * routers_);
  const uint32_t cols = config.columns;
  for (uint32_t r = 0; r < routers_; ++r) {
    for (uint32_t t = 0; t < routers_; ++t) {
      if (r == t) continue;
      const Direction d = routing_->next(r % cols, r / cols, t % cols, t / cols);
      uint32_t next = r;
      switch (d) {
        case Direction::kEast: next = r + 1; break;
        case Direction::kWest: next = r - 1; break;
        case Direction::kNorth: next = r - cols; break;
        case Direction::kSouth: next = r + cols; break;
      }
      mesh_step_[size_t{r} * routers_ + t] = MeshStep{next, static_cast<uint32_t>(d)};
    }
  }
  std::copy(std::begin(latency_ps_), std::end(latency_ps_), std::begin(step_latency_ps_));
  for (uint32_t l = 0; l < total_links; ++l) {
    Link& link = links_[l];
    const LinkKind kind = link_kind(l);
    link.kind_bits = static_cast<uint8_t>(kind) & 7;
    link.target = link_target(l);
    // A scale-up link down from a plane: its latency was paid going up (step()).
    const bool down_from_plane = kind == LinkKind::kScaleUp && ((l - scale_up_first_) & 1) != 0;
    link.latency_index = (down_from_plane ? kNoLatency : static_cast<uint8_t>(kind)) & 7;
  }
}

uint32_t NocNetwork::router_node(uint32_t gpu, uint32_t x, uint32_t y) const {
  return gpu << node_bits_ | (y * config_.columns + x);
}
uint32_t NocNetwork::cu_node(uint32_t gpu, uint32_t cu) const {
  return gpu << node_bits_ | (routers_ + cu);
}
uint32_t NocNetwork::hbm_node(uint32_t gpu, uint32_t channel) const {
  return gpu << node_bits_ | (hbm_first_ + channel);
}
uint32_t NocNetwork::io_node(uint32_t gpu, uint32_t port) const {
  return gpu << node_bits_ | (io_first_ + port);
}

LinkKind NocNetwork::link_kind(uint32_t link) const {
  if (link >= scale_up_first_) return LinkKind::kScaleUp;
  const uint32_t local = link % links_per_gpu_;
  if (local < 4 * routers_) return LinkKind::kRouter;
  const uint32_t endpoint = routers_ + (local - 4 * routers_) / 2;
  if (endpoint < hbm_first_) return LinkKind::kCu;
  return endpoint < io_first_ ? LinkKind::kHbm : LinkKind::kIo;
}

uint32_t NocNetwork::link_target(uint32_t link) const {
  if (link >= scale_up_first_) {
    const uint32_t index = (link - scale_up_first_) / 2;
    const uint32_t gpu = index / ios_, port = index % ios_;
    const bool up = ((link - scale_up_first_) & 1) == 0;
    return up ? (gpus_ << node_bits_ | port) : io_node(gpu, port);
  }
  const uint32_t gpu = link / links_per_gpu_, local = link % links_per_gpu_;
  const uint32_t base = gpu << node_bits_;
  if (local < 4 * routers_) {
    const uint32_t r = local / 4, x = r % config_.columns, y = r / config_.columns;
    switch (static_cast<Direction>(local % 4)) {
      case Direction::kEast: return base + y * config_.columns + x + 1;
      case Direction::kWest: return base + y * config_.columns + x - 1;
      case Direction::kNorth: return base + (y - 1) * config_.columns + x;
      case Direction::kSouth: return base + (y + 1) * config_.columns + x;
    }
  }
  const uint32_t endpoint = routers_ + (local - 4 * routers_) / 2;
  const bool up = ((local - 4 * routers_) & 1) == 0;
  return base + (up ? router_of(endpoint) : endpoint);
}

[[gnu::always_inline]] inline NocNetwork::Step NocNetwork::step(uint32_t node, uint32_t dst, uint8_t port) const {
  constexpr auto kScaleUp = static_cast<int>(LinkKind::kScaleUp);
  const uint32_t dst_gpu = dst >> node_bits_;
  const uint32_t gpu = node >> node_bits_;
  if (gpu == gpus_) {  // a switch plane: down to the target GPU's port (its latency was paid going up)
    return Step{scale_up_first_ + 2 * (dst_gpu * ios_ + port) + 1, dst_gpu << node_bits_ | (io_first_ + port),
                LinkKind::kScaleUp, 0};
  }
  const uint32_t base = gpu << node_bits_;
  const uint32_t local = node & ((uint32_t{1} << node_bits_) - 1);
  const uint32_t link_base = gpu * links_per_gpu_;
  const uint32_t endpoint_links = link_base + 4 * routers_;
  if (local >= routers_) {
    if (local >= io_first_ && dst_gpu != gpu) {
      return Step{scale_up_first_ + 2 * (gpu * ios_ + (local - io_first_)), gpus_ << node_bits_ | (local - io_first_),
                  LinkKind::kScaleUp, latency_ps_[kScaleUp]};
    }
    const LinkKind kind = endpoint_kind(local);
    return Step{endpoint_links + 2 * (local - routers_), base | router_of(local), kind,
                latency_ps_[static_cast<int>(kind)]};
  }
  const uint32_t target = dst_gpu == gpu ? dst - base : io_first_ + port;
  const uint32_t target_router = router_of(target);
  if (local == target_router) {
    const LinkKind kind = endpoint_kind(target);
    return Step{endpoint_links + 2 * (target - routers_) + 1, base | target, kind,
                latency_ps_[static_cast<int>(kind)]};
  }
  const MeshStep mesh = mesh_step_[size_t{local} * routers_ + target_router];
  return Step{link_base + 4 * local + mesh.direction, base | mesh.next, LinkKind::kRouter,
              latency_ps_[static_cast<int>(LinkKind::kRouter)]};
}

std::vector<uint32_t> NocNetwork::path(uint32_t from, uint32_t to, uint8_t port) const {
  if (to >> node_bits_ >= gpus_) throw Error("noc network: a path ends at a GPU node");
  std::vector<uint32_t> links;
  for (uint32_t node = from; node != to;) {
    const Step hop = step(node, to, port);
    links.push_back(hop.link);
    node = hop.node;
    if (links.size() > 4 * (config_.columns + config_.rows) + 8) throw Error("noc network: routing loop");
  }
  return links;
}

struct NocNetwork::Hop {
  static constexpr uint8_t kKind = 1;
  Transit transit;  // the message reaches transit.node
};
struct NocNetwork::LinkFree {
  static constexpr uint8_t kKind = 2;
  uint32_t link;
};
struct NocNetwork::MemoryAccess {
  static constexpr uint8_t kKind = 3;
  uint32_t tag;
};

void NocNetwork::send(uint32_t tag, const gpu::Access& access) {
  if (access.src_gpu >= gpus_ || access.dst_gpu >= gpus_ || access.src_cu >= cus_) {
    throw Error(fmt::format("noc network: request from gpu {} cu {} to gpu {} outside {} GPUs of {} CUs",
                            access.src_gpu, access.src_cu, access.dst_gpu, gpus_, cus_));
  }
  if (access.request_bytes > UINT16_MAX || access.response_bytes > UINT16_MAX) {
    throw Error(fmt::format("noc network: a message of {} bytes, more than {}",
                            std::max(access.request_bytes, access.response_bytes), UINT16_MAX));
  }
  if (tag >= kMemberTag) throw Error(fmt::format("noc network: tag {} is beyond the tags modelled", tag));
  if (access.multicast != gpu::Multicast::kNone) {
    send_multicast(tag, access);
    return;
  }
  if (access.dst_gpu != access.src_gpu && ios_ == 0)
    throw Error("noc network: remote access but the GPU has no I/O ports");
  if (tag >= tags_.size()) tags_.resize(tag + 1);
  TagRoute& route = tags_[tag];
  route.cu_node = cu_node(access.src_gpu, access.src_cu);
  route.memory_node = hbm_node(access.dst_gpu, static_cast<uint32_t>(access.line % hbm_));
  route.response_bytes = static_cast<uint16_t>(access.response_bytes);
  route.response_class = static_cast<uint8_t>(access.response_class);
  route.port = static_cast<uint8_t>(ios_ == 0 ? 0 : io_port_of_line(access.line));
  if (flows_) {
    // Bounded by the 16-bit message size checked above (a line is at least
    // a byte of it).
    if (access.lines == 0 || access.lines > UINT16_MAX) {
      throw Error(fmt::format("noc network: a flow of {} lines from gpu {} cu {}", access.lines, access.src_gpu,
                              access.src_cu));
    }
    route.first_line = access.line;
    route.lines = access.lines;
    if (access.lines > 1 && line_interval_ps_ > 0) {
      // The flow leaves the CU when its last line would have: a hop event
      // at its own node puts it on the CU link then.
      ++stats_.messages;
      stats_.max_in_flight = std::max(stats_.max_in_flight, ++in_flight_);
      const Transit transit{tag, route.cu_node, route.memory_node, static_cast<uint16_t>(access.request_bytes),
                            route.port, static_cast<uint8_t>(access.request_class), 0};
      loop_.schedule(loop_.now() + TimePs{access.lines - 1} * line_interval_ps_, handler_, Hop{transit});
      return;
    }
  } else if (access.lines != 1) {
    throw Error(fmt::format("noc network: an access of {} lines, but the network carries requests (one line each)",
                            access.lines));
  }
  inject(Transit{tag, route.cu_node, route.memory_node, static_cast<uint16_t>(access.request_bytes), route.port,
                 static_cast<uint8_t>(access.request_class), 0});
}

void NocNetwork::respond(uint32_t tag) {
  const TagRoute& route = tags_[tag];
  inject(Transit{tag, route.memory_node, route.cu_node, route.response_bytes, route.port, route.response_class, 1});
}

void NocNetwork::inject(const Transit& transit) {
  ++stats_.messages;
  stats_.max_in_flight = std::max(stats_.max_in_flight, ++in_flight_);
  forward<false>(transit);
}

void NocNetwork::Link::grow(int q) {
  // Doubled, in order from the head.
  const uint32_t capacity = capacity_log2[q] == 0 ? 0 : mask(q) + 1;
  const uint8_t grown_log2 = capacity_log2[q] == 0 ? 4 : static_cast<uint8_t>(capacity_log2[q] + 1);
  auto moved = std::make_unique<Waiting[]>(size_t{1} << grown_log2);
  for (uint32_t i = 0; i < size[q]; ++i) moved[i] = slots[q][(head[q] + i) & (capacity - 1)];
  slots[q] = std::move(moved);
  capacity_log2[q] = grown_log2;
  head[q] = 0;
}

template <bool kPlain>
[[gnu::always_inline]] inline void NocNetwork::transmit(const Step& hop, Transit transit, bool rearm) {
  Link& link = links_[hop.link];
  const int kind = static_cast<int>(hop.kind);
  const TimePs serialize = serialize_ps(kind, transit.bytes);
  link.last_class = transit.cls;
  link.busy_ps += serialize;
  ++kind_messages_[kind];
  kind_bytes_[kind] += transit.bytes;
  const TimePs now = loop_.now();
  if (!kPlain && timeline_) [[unlikely]] timeline_->transmitted(kind, now, serialize, transit.bytes);
  // The link-free event takes its place in the order here, before the hop.
  link.free_at_ps = now + serialize;
  link.free_sequence = loop_.reserve_sequence();
  if (rearm) {
    // A message waits: its link-free event is needed, scheduled here where
    // it would have been (in its delay's lane, before the hop).
    link.free_scheduled = true;
    loop_.schedule_reserved(link.free_at_ps, link.free_sequence, handler_, LinkFree{hop.link});
  }
  const TimePs arrive =
      !kPlain && flows_ ? flow_arrival_ps(hop, transit, now, serialize) : now + serialize + hop.latency_ps;
  transit.node = hop.node;
  loop_.schedule(arrive, handler_, Hop{transit});
}

// Inlined into the event loop of handle() (its registers stay live across
// hops instead of being saved and restored per call).
template <bool kPlain>
[[gnu::always_inline]] inline void NocNetwork::forward(Transit transit) {
  if (transit.node == transit.dst) {
    if ((transit.node >> node_bits_) == gpus_) [[unlikely]] {
      at_plane(transit);
      return;
    }
    if (!transit.response) {
      loop_.schedule(loop_.now() + hbm_access_ps_, handler_, MemoryAccess{transit.tag});
      return;
    }
    --in_flight_;
    sink_->completed(transit.tag);
    return;
  }
  const Step hop = step(transit.node, transit.dst, transit.port);
  if (!kPlain && flows_ && striped(hop.kind)) [[unlikely]] {
    const TimePs arrive = stripe(hop, transit);
    transit.node = hop.node;
    loop_.schedule(arrive, handler_, Hop{transit});
    return;
  }
  Link& link = links_[hop.link];
  // Idle unless the message on it leaves after this event (in event order).
  if (!loop_.after_current(link.free_at_ps, link.free_sequence)) {
    transmit<kPlain>(hop, transit, false);
    return;
  }
  link.push(fifo_ ? 0 : transit.cls, Waiting{transit, sequence_++});
  // Waiting time is summed as dequeue minus enqueue times (exact once the
  // queues drain, which they always do: a waiting message has its
  // link-free event).
  kind_queued_ps_[static_cast<int>(hop.kind)] -= loop_.now();
  if (!kPlain && timeline_) [[unlikely]] timeline_->enqueued(static_cast<int>(hop.kind), loop_.now());
  if (!link.free_scheduled) {
    link.free_scheduled = true;
    loop_.schedule_reserved(link.free_at_ps, link.free_sequence, handler_, LinkFree{hop.link});
  }
}

// A message waits for the link: the arbiter picks the next one.
template <bool kPlain>
[[gnu::always_inline]] inline void NocNetwork::link_free(uint32_t link_index) {
  Link& link = links_[link_index];
  link.free_scheduled = false;
  int q = 0;
  if (!fifo_) {
    QueueHeads heads;
    for (int c = 0; c < 2; ++c) {
      heads.waiting[c] = link.size[c] != 0;
      if (heads.waiting[c]) heads.sequence[c] = link.front(c).sequence;
    }
    if (!heads.waiting[0] && !heads.waiting[1]) return;
    heads.last_class = link.last_class;
    q = arbiter_->pick(heads);
  } else if (link.size[0] == 0) {
    return;
  }
  const Transit transit = link.front(q).transit;
  link.pop(q);
  // The next message of a long queue was written long ago: start fetching
  // it now, a serialization time before it is needed.
  if (link.size[q] > 2) __builtin_prefetch(&link.slots[q][(link.head[q] + 2) & link.mask(q)]);
  // The message is still before the link it waited for.
  const Step hop = link_step(link_index, link);
  kind_queued_ps_[static_cast<int>(hop.kind)] += loop_.now();
  if (!kPlain && timeline_) [[unlikely]] timeline_->dequeued(static_cast<int>(hop.kind), loop_.now());
  transmit<kPlain>(hop, transit, link.size[0] != 0 || link.size[1] != 0);
}

TimePs NocNetwork::ceil_serialize_ps(int kind, uint32_t bytes) const {
  return ceil_ps(bytes * ps_per_byte_[kind]);
}

void NocNetwork::at_memory(uint32_t tag) {
  if (tag >= kMemberTag) [[unlikely]] {
    member_at_memory(tag);
    return;
  }
  --in_flight_;
  if (sink_->arrived(tag)) respond(tag);
}

void NocNetwork::handle(const Event& first) {
  if (sink_ == nullptr) throw Error("noc network: no GPU model attached");
  // Request level without a timeline, the loop has no flow or timeline
  // test per hop.
  if (flows_ || timeline_) {
    run<false>(first);
  } else {
    run<true>(first);
  }
}

template <bool kPlain>
void NocNetwork::run(const Event& first) {
  // Most events are hops, one after another: they are taken here, in the
  // queue's order, without a round through the loop.
  uint8_t kind = first.kind;
  EventData data = first.data;
  const bool nested = loop_.delivering_now();
  do {
    switch (kind) {
      case Hop::kKind: forward<kPlain>(data.as<Hop>().transit); break;
      case LinkFree::kKind: link_free<kPlain>(data.as<LinkFree>().link); break;
      case MemoryAccess::kKind: at_memory(data.as<MemoryAccess>().tag); break;
      case PlaneReply::kKind: plane_reply(data.as<PlaneReply>().tag); break;
      default: throw_unknown_event("noc network", Event{loop_.now(), data, handler_, kind});
    }
  } while (!nested && loop_.queue().pop_if_for(handler_, kind, data));
}

const NocStats& NocNetwork::stats() {
  // Messages, bytes and waiting are counted per kind as they happen; the
  // links and their busy time are summed here.
  stats_.hops = 0;
  for (int k = 0; k < static_cast<int>(LinkKind::kCount); ++k) {
    stats_.kinds[k] = LinkKindStats{};
    stats_.kinds[k].messages = kind_messages_[k];
    stats_.kinds[k].bytes = kind_bytes_[k];
    stats_.kinds[k].queued_ps = kind_queued_ps_[k];
    stats_.hops += kind_messages_[k];
  }
  for (uint32_t l = 0; l < links_.size(); ++l) {
    LinkKindStats& k = stats_.kinds[static_cast<int>(link_kind(l))];
    ++k.links;
    k.busy_ps += links_[l].busy_ps;
    k.max_link_busy_ps = std::max(k.max_link_busy_ps, links_[l].busy_ps);
  }
  return stats_;
}

}  // namespace snr::dsim::noc
