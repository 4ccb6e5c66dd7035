// MSCCLang / MSCCL algorithm XML (the format ASTRA-sim's custom collectives
// are written in): <algo> of <gpu>s, each with threadblocks (<tb>) that send
// to one peer and receive from one peer over a channel, running <step>s in
// order; a step may wait for a step of another threadblock on the same GPU
// (depid/deps). Read strictly: unknown elements or attributes, bad numbers,
// out-of-range chunks and dangling dependencies are errors naming the line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace snr::msccllang {

enum class Buffer : uint8_t { kInput, kOutput, kScratch };

enum class StepType : uint8_t {
  kSend,                // s: send src chunks to the threadblock's send peer
  kRecv,                // r: receive from the recv peer into dst
  kRecvCopySend,        // rcs: receive into dst and forward to the send peer
  kRecvReduceSend,      // rrs: receive, reduce with src, forward (not stored)
  kRecvReduceCopy,      // rrc: receive, reduce with src, store to dst
  kRecvReduceCopySend,  // rrcs: receive, reduce with src, store to dst and forward
  kCopy,                // cpy: local copy src -> dst
  kReduce,              // re: local reduce dst = src (+) dst
  kNop,                 // nop: only a dependency point
};

std::string_view to_string(StepType type);  // as written: "s", "rrc", ...
std::string_view to_string(Buffer buffer);  // "i", "o", "s"

struct Step {
  uint32_t index = 0;  // the step's `s`
  StepType type = StepType::kNop;
  Buffer src = Buffer::kInput, dst = Buffer::kInput;
  uint32_t src_offset = 0, dst_offset = 0, count = 0;  // chunks
  int32_t dep_threadblock = -1, dep_step = -1;          // wait for that step (same GPU) first
  bool has_dependents = false;
  uint32_t line = 0;
};

struct Threadblock {
  uint32_t id = 0;
  int32_t send_peer = -1, recv_peer = -1;
  uint32_t channel = 0;
  std::vector<Step> steps;
  uint32_t line = 0;
};

struct Gpu {
  uint32_t id = 0;
  uint32_t input_chunks = 0, output_chunks = 0, scratch_chunks = 0;
  std::vector<Threadblock> threadblocks;  // in file order; ids unique
  uint32_t chunks(Buffer b) const {
    return b == Buffer::kInput ? input_chunks : b == Buffer::kOutput ? output_chunks : scratch_chunks;
  }
};

struct Algorithm {
  std::string name;
  std::string protocol;    // Simple, LL, LL128
  std::string collective;  // coll
  uint32_t channels = 1;
  uint32_t chunks_per_loop = 0;
  bool inplace = false;
  std::vector<Gpu> gpus;  // gpus[i].id == i
};

Algorithm parse_algorithm(std::string_view xml_text, const std::string& source);
Algorithm read_algorithm_file(const std::string& path);

// Deterministic text summary (golden files, CLI).
std::string summarize(const Algorithm& algorithm);

}  // namespace snr::msccllang
