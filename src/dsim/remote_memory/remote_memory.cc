#include "dsim/remote_memory/remote_memory.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::dsim {

RemoteMemory::RemoteMemory(const RemoteMemoryConfig& config, uint64_t npus_count, EventLoop& loop,
                           RemoteMemoryClient& client)
    : config_(config), loop_(loop), client_(client) {
  size_t shared = 0;
  switch (config.type) {
    case RemoteMemoryType::kPerNodeExpansion:
      // ASTRA-sim indexes its nodes with npu / num-npus-per-node and
      // assumes the result is below num-nodes.
      if (uint64_t{config.num_nodes} * config.num_npus_per_node < npus_count) {
        throw Error(fmt::format("remote memory: num-nodes {} x num-npus-per-node {} covers {} NPUs, the network has {}",
                                config.num_nodes, config.num_npus_per_node,
                                uint64_t{config.num_nodes} * config.num_npus_per_node, npus_count));
      }
      shared = config.num_nodes;
      break;
    case RemoteMemoryType::kMemoryPool: shared = 1; break;
    case RemoteMemoryType::kPerNpuExpansion: break;
    case RemoteMemoryType::kNoExpansion: throw Error("remote memory: NO_MEMORY_EXPANSION has no memory to model");
  }
  busy_.assign(shared, false);
  waiting_.resize(shared);
  handler_ = loop_.add_handler("remote memory", *this);
}

uint64_t RemoteMemory::runtime_ns(uint64_t bytes) const {
  return config_.latency_ns +
         static_cast<uint64_t>(static_cast<double>(bytes) / static_cast<double>(config_.bandwidth_bytes_per_ns));
}

uint32_t RemoteMemory::memory_of(NpuId npu) const {
  switch (config_.type) {
    case RemoteMemoryType::kPerNodeExpansion: return npu / config_.num_npus_per_node;
    case RemoteMemoryType::kMemoryPool: return 0;
    default: return kNone;
  }
}

void RemoteMemory::issue(NpuId npu, uint32_t node_index, uint64_t bytes) {
  ++requests_;
  const Request request{npu, node_index, bytes};
  const uint32_t memory = memory_of(npu);
  if (memory != kNone) {
    if (busy_[memory]) {
      ++requests_that_waited_;
      waiting_[memory].push_back(request);
      return;
    }
    busy_[memory] = true;
  }
  start(request);
}

void RemoteMemory::start(const Request& request) {
  loop_.schedule_batched(loop_.now() + runtime_ns(request.bytes), request.npu, handler_,
                         RequestDone{request.npu, request.node});
}

void RemoteMemory::handle(const Event& event) {
  if (event.kind != RequestDone::kKind) throw_unknown_event("remote memory", event);
  const auto done = event.get<RequestDone>();
  // The NPU first: what it issues now queues behind the requests waiting.
  client_.remote_memory_done(done.npu, done.node);
  const uint32_t memory = memory_of(done.npu);
  if (memory == kNone) return;
  if (waiting_[memory].empty()) {
    busy_[memory] = false;
    return;
  }
  const Request next = waiting_[memory].front();
  waiting_[memory].pop_front();
  start(next);
}

}  // namespace snr::dsim
