// How the GPU model reaches memory. Every cache-line Wavefront Request
// (seed 003 §4.4.3) is an Access: a request message from a CU to the memory
// holding the line (local HBM or another GPU's), and a response message
// back (the loaded line, or a store's acknowledgement). The network carries
// both and calls the AccessSink twice: when the request reaches memory, and
// when the response reaches the CU.
//
// Why memory side effects happen at arrival: a semaphore's value and an LL
// packet's flags live in the target GPU's memory, so a release or packet
// store becomes visible to a poll at the moment its request arrives there,
// not when the releaser issues it. A poll that finds nothing is parked at
// the memory and answered by respond() once a matching write arrives: the
// poll that succeeds is the one the CU sees return (no spin traffic is
// simulated, and a run whose events drain with parked polls is a deadlock).
//
// Time is the event loop's clock, counted in picoseconds by the GPU model
// (sub-nanosecond serialization of a 128-byte line on a 1 TiB/s link).
#pragma once

#include <cstdint>
#include <string>

#include "dsim/core/event_loop.h"

namespace snr::dsim::gpu {

using TimePs = uint64_t;

// Control messages (read requests, store acknowledgements, semaphore
// traffic) and data messages (loaded lines, stored lines) can be arbitrated
// separately (seed 003 §5.2).
enum class MessageClass : uint8_t { kControl = 0, kData = 1 };

// A switch multicast access (NVSwitch multimem, seed 003 §4.1.1's switch
// address): the same line of every member GPU. A reduce-load returns the
// members' lines combined in the switch, a broadcast-store writes the line
// to every member and is acknowledged once all members acknowledged.
enum class Multicast : uint8_t { kNone, kReduceLoad, kBroadcastStore };

struct Access {
  uint32_t src_gpu = 0;
  uint32_t src_cu = 0;
  uint32_t dst_gpu = 0;  // the GPU whose memory holds the line
  uint64_t line = 0;     // cache-line index in dst_gpu's address space (interleaves HBM channels)
  uint32_t request_bytes = 0;   // the whole message (all its lines)
  uint32_t response_bytes = 0;  // the whole message (all its lines)
  MessageClass request_class = MessageClass::kControl;
  MessageClass response_class = MessageClass::kData;
  // Flow-level mode: consecutive lines line .. line + lines - 1 as one
  // Access (a flow); 1 at request level.
  uint32_t lines = 1;
  // Multicast (only where MemoryNetwork::carries_multicast()): dst_gpu is
  // unused and the line is at the same address on `member_count` GPUs
  // `members`, which the network copies in send().
  Multicast multicast = Multicast::kNone;
  const uint32_t* members = nullptr;
  uint32_t member_count = 0;
};

class AccessSink {
 public:
  virtual ~AccessSink() = default;
  // The request of `tag` reached its memory. True: memory answers at once;
  // false: parked, the sink calls MemoryNetwork::respond(tag) later. A
  // multicast request arrives once at every member and may not be parked.
  virtual bool arrived(uint32_t tag) = 0;
  // The response of `tag` reached its CU; the tag is free afterwards.
  virtual void completed(uint32_t tag) = 0;
};

// The event loop's buckets for a picosecond clock whose events are
// picoseconds to nanoseconds apart (event_queue.h): 32 ps to start with,
// adapting to the density between 1 ps and 1 ns; and delay lanes, since
// most events are a NoC hop or a memory access a fixed delay ahead. Same
// order either way, so a loop that already holds other layers' events
// keeps its own.
inline void use_picosecond_buckets(EventLoop& loop) {
  if (loop.queue().empty()) loop.queue().set_adaptive_bucket_width(5, 10);
  loop.queue().enable_delay_lanes();
}

class MemoryNetwork {
 public:
  virtual ~MemoryNetwork() = default;
  virtual void attach(AccessSink& sink) = 0;
  // Injects the request of `tag` at the loop's current time. Tags are dense
  // small integers (the GPU model's in-flight pool), reused after completed().
  virtual void send(uint32_t tag, const Access& access) = 0;
  // Answers a request that arrived() parked; its response leaves now.
  virtual void respond(uint32_t tag) = 0;
  // The GPU model runs at flow level (Accesses of several lines), issuing a
  // flow's lines `line_interval_ps` apart: a flow leaves when its last line
  // would have (send() + (lines - 1) intervals), and a network that times
  // a flow otherwise than one message of its bytes switches here, before
  // the first send().
  virtual void carry_flows(TimePs line_interval_ps) = 0;
  // Compute units per GPU the network has endpoints for (0: any number).
  [[nodiscard]] virtual uint32_t compute_units() const = 0;
  // Whether send() takes multicast Accesses; a network without them gets
  // one unicast Access per member instead (the GPU model expands them).
  [[nodiscard]] virtual bool carries_multicast() const { return false; }
};

}  // namespace snr::dsim::gpu
