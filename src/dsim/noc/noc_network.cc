#include "dsim/noc/noc_network.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"

namespace snr::dsim::noc {

namespace {

struct Hop {
  static constexpr uint8_t kKind = 1;
  uint32_t message;
};
struct LinkFree {
  static constexpr uint8_t kKind = 2;
  uint32_t link;
};
struct MemoryAccess {
  static constexpr uint8_t kKind = 3;
  uint32_t message;
};

TimePs ns_to_ps(double ns) {
  return static_cast<TimePs>(std::llround(ns * 1000.0));
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
  routers_ = config.routers();
  cus_ = config.compute_units();
  const std::vector<uint32_t> hbm_routers = config.side_routers(config.hbm_sides);
  const std::vector<uint32_t> io_routers = config.side_routers(config.io_sides);
  hbm_ = static_cast<uint32_t>(hbm_routers.size()) * config.hbm_per_router;
  ios_ = static_cast<uint32_t>(io_routers.size()) * config.io_per_router;
  hbm_first_ = routers_ + cus_;
  io_first_ = hbm_first_ + hbm_;
  nodes_per_gpu_ = io_first_ + ios_;
  const uint64_t total_nodes = uint64_t{gpus} * nodes_per_gpu_ + ios_;
  links_per_gpu_ = 4 * routers_ + 2 * (nodes_per_gpu_ - routers_);
  const uint64_t total_links = uint64_t{gpus} * links_per_gpu_ + 2ull * gpus * ios_;
  if (total_nodes >= UINT32_MAX / 2 || total_links >= UINT32_MAX / 2) {
    throw Error(
        fmt::format("noc network: {} GPUs of {} endpoints are more than the model indexes", gpus, nodes_per_gpu_));
  }
  scale_up_first_ = gpus * links_per_gpu_;
  for (uint32_t c = 0; c < cus_; ++c) endpoint_router_.push_back(c / config.cus_per_router);
  for (uint32_t h = 0; h < hbm_; ++h) endpoint_router_.push_back(hbm_routers[h / config.hbm_per_router]);
  for (uint32_t p = 0; p < ios_; ++p) endpoint_router_.push_back(io_routers[p / config.io_per_router]);
  const LinkSpec* specs[] = {&config.router_link, &config.cu_link, &config.hbm_link, &config.io_link,
                             &config.scale_up_link};
  for (int k = 0; k < static_cast<int>(LinkKind::kCount); ++k) {
    ps_per_byte_[k] = ps_per_byte(specs[k]->bandwidth_gib_per_s);
    latency_ps_[k] = ns_to_ps(specs[k]->latency_ns);
  }
  hbm_access_ps_ = ns_to_ps(config.hbm_access_latency_ns);
  links_.resize(total_links);
}

uint32_t NocNetwork::router_node(uint32_t gpu, uint32_t x, uint32_t y) const {
  return gpu * nodes_per_gpu_ + y * config_.columns + x;
}
uint32_t NocNetwork::cu_node(uint32_t gpu, uint32_t cu) const {
  return gpu * nodes_per_gpu_ + routers_ + cu;
}
uint32_t NocNetwork::hbm_node(uint32_t gpu, uint32_t channel) const {
  return gpu * nodes_per_gpu_ + hbm_first_ + channel;
}
uint32_t NocNetwork::io_node(uint32_t gpu, uint32_t port) const {
  return gpu * nodes_per_gpu_ + io_first_ + port;
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
    return up ? gpus_ * nodes_per_gpu_ + port : io_node(gpu, port);
  }
  const uint32_t gpu = link / links_per_gpu_, local = link % links_per_gpu_;
  const uint32_t base = gpu * nodes_per_gpu_;
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

uint32_t NocNetwork::next_link(uint32_t node, uint32_t dst, uint8_t port) const {
  const uint32_t dst_gpu = dst / nodes_per_gpu_;
  if (node >= gpus_ * nodes_per_gpu_) {  // a switch plane: down to the target GPU's port
    const uint32_t plane = node - gpus_ * nodes_per_gpu_;
    return scale_up_first_ + 2 * (dst_gpu * ios_ + plane) + 1;
  }
  const uint32_t gpu = node / nodes_per_gpu_, local = node % nodes_per_gpu_;
  const uint32_t link_base = gpu * links_per_gpu_;
  if (local >= routers_) {
    if (is_io(local) && dst_gpu != gpu) return scale_up_first_ + 2 * (gpu * ios_ + (local - io_first_));
    return link_base + 4 * routers_ + 2 * (local - routers_);
  }
  const uint32_t target = dst_gpu == gpu ? dst % nodes_per_gpu_ : io_first_ + port;
  const uint32_t target_router = router_of(target);
  if (local == target_router) return link_base + 4 * routers_ + 2 * (target - routers_) + 1;
  const uint32_t cols = config_.columns;
  const Direction d = routing_->next(local % cols, local / cols, target_router % cols, target_router / cols);
  return link_base + 4 * local + static_cast<uint32_t>(d);
}

uint32_t NocNetwork::next_link(const Message& m) const {
  return next_link(m.node, m.dst, m.port);
}

std::vector<uint32_t> NocNetwork::path(uint32_t from, uint32_t to, uint8_t port) const {
  std::vector<uint32_t> links;
  for (uint32_t node = from; node != to;) {
    const uint32_t link = next_link(node, to, port);
    links.push_back(link);
    node = link_target(link);
    if (links.size() > 4 * (config_.columns + config_.rows) + 8) throw Error("noc network: routing loop");
  }
  return links;
}

void NocNetwork::send(uint32_t tag, const gpu::Access& access) {
  if (access.src_gpu >= gpus_ || access.dst_gpu >= gpus_ || access.src_cu >= cus_) {
    throw Error(fmt::format("noc network: request from gpu {} cu {} to gpu {} outside {} GPUs of {} CUs",
                            access.src_gpu, access.src_cu, access.dst_gpu, gpus_, cus_));
  }
  if (tag >= tags_.size()) tags_.resize(tag + 1);
  TagRoute& route = tags_[tag];
  route.cu_node = cu_node(access.src_gpu, access.src_cu);
  route.memory_node = hbm_node(access.dst_gpu, static_cast<uint32_t>(access.line % hbm_));
  route.response_bytes = access.response_bytes;
  route.response_class = static_cast<uint8_t>(access.response_class);
  route.port = static_cast<uint8_t>(ios_ == 0 ? 0 : (access.line / hbm_ + access.line) % ios_);
  if (access.dst_gpu != access.src_gpu && ios_ == 0)
    throw Error("noc network: remote access but the GPU has no I/O ports");
  inject(tag, route.cu_node, route.memory_node, access.request_bytes, static_cast<uint8_t>(access.request_class),
         route.port, false);
}

void NocNetwork::respond(uint32_t tag) {
  const TagRoute& route = tags_[tag];
  inject(tag, route.memory_node, route.cu_node, route.response_bytes, route.response_class, route.port, true);
}

void NocNetwork::inject(uint32_t tag, uint32_t from, uint32_t to, uint32_t bytes, uint8_t cls, uint8_t port,
                        bool response) {
  if (free_message_ == UINT32_MAX) {
    messages_.emplace_back();
    free_message_ = static_cast<uint32_t>(messages_.size() - 1);
  }
  const uint32_t index = free_message_;
  Message& m = messages_[index];
  free_message_ = m.next;
  m = Message{tag, from, to, bytes, cls, port, response, UINT32_MAX, 0, 0};
  ++stats_.messages;
  stats_.max_in_flight = std::max(stats_.max_in_flight, ++in_flight_);
  forward(index);
}

void NocNetwork::forward(uint32_t index) {
  Message& m = messages_[index];
  if (m.node == m.dst) {
    if (!m.response) {
      loop_.schedule(loop_.now() + hbm_access_ps_, handler_, MemoryAccess{index});
      return;
    }
    const uint32_t tag = m.tag;
    m.next = free_message_;
    free_message_ = index;
    --in_flight_;
    sink_->completed(tag);
    return;
  }
  const uint32_t link_index = next_link(m);
  Link& link = links_[link_index];
  if (!link.busy) {
    transmit(link_index, index, false);
    return;
  }
  m.sequence = sequence_++;
  m.enqueued_ps = loop_.now();
  m.next = UINT32_MAX;
  if (link.tail[m.cls] == UINT32_MAX) {
    link.head[m.cls] = index;
  } else {
    messages_[link.tail[m.cls]].next = index;
  }
  link.tail[m.cls] = index;
}

void NocNetwork::transmit(uint32_t link_index, uint32_t index, bool from_queue) {
  Link& link = links_[link_index];
  Message& m = messages_[index];
  const int kind = static_cast<int>(link_kind(link_index));
  const TimePs serialize = static_cast<TimePs>(std::ceil(m.bytes * ps_per_byte_[kind]));
  TimePs latency = latency_ps_[kind];
  // The switch plane's down link only adds its serialization (the scale-up
  // latency is counted once, on the way up).
  if (kind == static_cast<int>(LinkKind::kScaleUp) && ((link_index - scale_up_first_) & 1) == 1) latency = 0;
  link.busy = true;
  link.last_class = m.cls;
  link.busy_ps += serialize;
  ++link.messages;
  link.bytes += m.bytes;
  if (from_queue) stats_.kinds[kind].queued_ps += loop_.now() - m.enqueued_ps;
  m.node = link_target(link_index);
  ++stats_.hops;
  const TimePs now = loop_.now();
  loop_.schedule(now + serialize, handler_, LinkFree{link_index});
  loop_.schedule(now + serialize + latency, handler_, Hop{index});
}

void NocNetwork::handle(const Event& event) {
  if (sink_ == nullptr) throw Error("noc network: no GPU model attached");
  switch (event.kind) {
    case Hop::kKind: forward(event.get<Hop>().message); return;
    case LinkFree::kKind: {
      const uint32_t link_index = event.get<LinkFree>().link;
      Link& link = links_[link_index];
      QueueHeads heads;
      for (int c = 0; c < 2; ++c) {
        heads.waiting[c] = link.head[c] != UINT32_MAX;
        if (heads.waiting[c]) heads.sequence[c] = messages_[link.head[c]].sequence;
      }
      if (!heads.waiting[0] && !heads.waiting[1]) {
        link.busy = false;
        return;
      }
      heads.last_class = link.last_class;
      const uint8_t cls = arbiter_->pick(heads);
      const uint32_t index = link.head[cls];
      link.head[cls] = messages_[index].next;
      if (link.head[cls] == UINT32_MAX) link.tail[cls] = UINT32_MAX;
      transmit(link_index, index, true);
      return;
    }
    case MemoryAccess::kKind: {
      const uint32_t index = event.get<MemoryAccess>().message;
      const uint32_t tag = messages_[index].tag;
      messages_[index].next = free_message_;
      free_message_ = index;
      --in_flight_;
      if (sink_->arrived(tag)) respond(tag);
      return;
    }
    default: throw_unknown_event("noc network", event);
  }
}

const NocStats& NocNetwork::stats() {
  for (auto& k : stats_.kinds) {
    const TimePs queued = k.queued_ps;
    k = LinkKindStats{};
    k.queued_ps = queued;
  }
  for (uint32_t l = 0; l < links_.size(); ++l) {
    LinkKindStats& k = stats_.kinds[static_cast<int>(link_kind(l))];
    ++k.links;
    k.messages += links_[l].messages;
    k.bytes += links_[l].bytes;
    k.busy_ps += links_[l].busy_ps;
    k.max_link_busy_ps = std::max(k.max_link_busy_ps, links_[l].busy_ps);
  }
  return stats_;
}

}  // namespace snr::dsim::noc
