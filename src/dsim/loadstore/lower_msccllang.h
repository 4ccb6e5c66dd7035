// Lowering of an MSCCLang (MSCCL XML) algorithm into the load-store
// representation for one message size. A send/receive pair between two GPUs
// goes through a FIFO of staging slots in the receiver's scratch memory, as
// in the MSCCL runtime: the sender takes a credit (a free slot), stores its
// chunks into the slot and marks it full; the receiver waits until it is
// full, consumes it (copy, reduce, forward) and returns the credit. With the
// LL and LL128 protocols the data carries its own flags (packet stores), so
// no "full" semaphore is needed. A step that depends on a step of another
// threadblock (depid/deps) waits on a semaphore that step releases.
#pragma once

#include <cstdint>
#include <string>

#include "dsim/loadstore/program.h"
#include "formats/msccllang/algorithm.h"

namespace snr::dsim::loadstore {

struct MsccllangLowering {
  uint64_t input_bytes = 0;          // per GPU; split into the GPU's input chunks (output chunks if none)
  uint32_t staging_slots = 8;        // FIFO depth per (sender, receiver, channel), NCCL_STEPS in MSCCL
  uint32_t threads_per_workgroup = 512;
  uint32_t wavefront_threads = 32;
};

Program lower_msccllang(const msccllang::Algorithm& algorithm, const MsccllangLowering& options);

// The smallest input size every GPU's chunk count splits into whole 16-byte units.
uint64_t smallest_exact_input_bytes(const msccllang::Algorithm& algorithm);

// The algorithm's collective under the names the checker knows (MSCCLang
// writes reduce-scatter as "reduce_scatter").
std::string msccllang_collective(const msccllang::Algorithm& algorithm);

// Whether the algorithm's input and output alias, as MSCCLang defines in
// place per collective: all-reduce and all-to-all write over their input,
// an all-gather's input is the GPU's slice of its output, a
// reduce-scatter's output the GPU's slice of its input. A custom
// collective's buffers stay apart (MSCCLang's base collective does not
// alias them, whatever the XML's inplace says).
bool msccllang_buffers_alias(const msccllang::Algorithm& algorithm);

}  // namespace snr::dsim::loadstore
