// Switch multicast on the NoC network (NVSwitch multimem, NocConfig::
// scale_up_multicast). A multicast request crosses its GPU's mesh and I/O
// port p once, up to switch plane p. The plane sends a copy down to port p
// of every member, which crosses that member's mesh to the HBM channel the
// line interleaves to; each member's answer (its line, or a store's
// acknowledgement) comes back up to the plane. When the last one is in, a
// reduce-load waits for the plane's reduction engine (one line at a time,
// its bytes at the engine's bandwidth, plus its latency) and a
// broadcast-store answers at once: one response goes down to the requester.
//
// The copies travel as messages of their own (tag kMemberTag | index), so
// the links, queues and arbitration treat them like any other message.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "dsim/noc/noc_network.h"

namespace snr::dsim::noc {

void NocNetwork::send_multicast(uint32_t tag, const gpu::Access& access) {
  if (!config_.scale_up_multicast) {
    throw Error(fmt::format("noc network '{}': a multicast access from gpu {}, but scale_up.multicast is off",
                            config_.name, access.src_gpu));
  }
  if (flows_) throw Error("noc network: a multicast access at flow level (the GPU model expands those)");
  if (ios_ == 0) throw Error("noc network: multicast access but the GPU has no I/O ports");
  if (access.member_count == 0 || access.members == nullptr) {
    throw Error(fmt::format("noc network: a multicast access from gpu {} without members", access.src_gpu));
  }
  if (access.lines != 1) throw Error(fmt::format("noc network: a multicast access of {} lines", access.lines));
  if (tag >= tags_.size()) tags_.resize(tag + 1);
  if (tag >= multicast_.size()) multicast_.resize(tag + 1);
  MulticastRoute& group = multicast_[tag];
  group.members.assign(access.members, access.members + access.member_count);
  for (uint32_t m : group.members) {
    if (m >= gpus_) throw Error(fmt::format("noc network: multicast member gpu {} outside {} GPUs", m, gpus_));
  }
  group.pending = access.member_count;
  group.reduce = access.multicast == gpu::Multicast::kReduceLoad;
  TagRoute& route = tags_[tag];
  route.cu_node = cu_node(access.src_gpu, access.src_cu);
  route.memory_node = static_cast<uint32_t>(access.line % hbm_);  // the channel; each member adds its GPU
  route.response_bytes = static_cast<uint16_t>(access.response_bytes);
  route.response_class = static_cast<uint8_t>(access.response_class);
  route.port = static_cast<uint8_t>(io_port_of_line(access.line));  // as a unicast access's
  route.first_line = access.line;
  route.lines = 1;
  // The request's bytes and class ride along to the plane, which copies them.
  inject(Transit{tag, route.cu_node, plane_node(route.port), static_cast<uint16_t>(access.request_bytes), route.port,
                 static_cast<uint8_t>(access.request_class), 0});
}

void NocNetwork::at_plane(const Transit& transit) {
  --in_flight_;
  PlaneStats& plane = stats_.planes[transit.port];
  if (!transit.response) {
    // The requester's message: a copy down to every member.
    const TagRoute& route = tags_[transit.tag];
    const MulticastRoute& group = multicast_[transit.tag];
    ++(group.reduce ? plane.reduce_loads : plane.broadcast_stores);
    for (uint32_t member : group.members) {
      if (free_member_ == UINT32_MAX) {
        if (member_routes_.size() >= kMemberTag) throw Error("noc network: more multicast copies than modelled");
        member_routes_.emplace_back();
        free_member_ = static_cast<uint32_t>(member_routes_.size() - 1);
      }
      const uint32_t index = free_member_;
      MemberRoute& copy = member_routes_[index];
      free_member_ = copy.next_free;
      copy.tag = transit.tag;
      copy.memory_node = hbm_node(member, route.memory_node);
      ++plane.fanout_messages;
      plane.fanout_bytes += transit.bytes;
      inject(Transit{kMemberTag | index, transit.node, copy.memory_node, transit.bytes, transit.port, transit.cls, 0});
    }
    return;
  }
  // A member's answer: the access is done when it was the last.
  const uint32_t index = transit.tag & ~kMemberTag;
  MemberRoute& copy = member_routes_[index];
  const uint32_t tag = copy.tag;
  copy.next_free = free_member_;
  free_member_ = index;
  ++plane.gathered_messages;
  plane.gathered_bytes += transit.bytes;
  MulticastRoute& group = multicast_[tag];
  if (--group.pending > 0) return;
  TimePs reply_ps = loop_.now();
  if (group.reduce) {
    const auto reduce_ps = static_cast<TimePs>(std::ceil(transit.bytes * reduce_ps_per_byte_));
    TimePs& free_ps = reduce_free_ps_[transit.port];
    free_ps = std::max(free_ps, reply_ps) + reduce_ps;
    plane.reduce_busy_ps += reduce_ps;
    reply_ps = free_ps + reduce_latency_ps_;
  }
  loop_.schedule(reply_ps, handler_, PlaneReply{tag});
}

void NocNetwork::member_at_memory(uint32_t member_tag) {
  --in_flight_;
  const MemberRoute& copy = member_routes_[member_tag & ~kMemberTag];
  // Memory side effects happen at each member (a multicast access never
  // waits on LL flags or semaphores, so it is never parked).
  if (!sink_->arrived(copy.tag)) {
    throw Error(fmt::format("noc network: the GPU model parked a multicast access (tag {}) at gpu {}", copy.tag,
                            copy.memory_node >> node_bits_));
  }
  const TagRoute& route = tags_[copy.tag];
  inject(Transit{member_tag, copy.memory_node, plane_node(route.port), route.response_bytes, route.port,
                 route.response_class, 1});
}

void NocNetwork::plane_reply(uint32_t tag) {
  const TagRoute& route = tags_[tag];
  inject(Transit{tag, plane_node(route.port), route.cu_node, route.response_bytes, route.port, route.response_class,
                 1});
}

}  // namespace snr::dsim::noc
