// Built-in collective algorithms expanded into load-store plans, so a
// collective runs on the GPU model without an MSCCL++ file (seed 003 §5.2:
// the same algorithm with get- or put-based transfers, compared like with
// like). The result is the same `Program` the MSCCL++ lowering produces, so
// the data-movement checker and the GPU model take it unchanged.
//
// Transfers (what crosses the scale-up network, and who synchronizes):
//   put  the sender copies its data into the peer's memory (MemcpyOp: local
//        Load → remote Store), then signals the peer (a fenced
//        SemaphoreRelease after the stores are acknowledged); the receiver
//        waits before it touches the data. Before the first transfer each
//        receiver tells its senders that its buffers are free (relaxed).
//   get  the owner signals that its data is ready; the peer waits, then
//        reads it with remote Loads and can reduce each line the moment it
//        arrives. After its last read the peer tells the owner it is done.
// Protocols (as the MSCCL++ lowering models them, docs/loadstore.md):
//   Simple  full-bandwidth stores plus the semaphores above;
//   LL      data and flag in one write (packet ranges, twice the wire
//           bytes): no semaphores at all, a load of a packet range waits
//           until the flags show its data arrived. Every step writes its own
//           packet slot in scratch, so no flag is ever reused.
//   LL128   (NCCL's plans) one flag word per 128-byte line, no semaphores.
//
// Algorithms are found by name in a small registry (plan_generator.cc lists
// the built-ins, one file each); each declares the collectives, transfers
// and protocols it implements and the parameters it reads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "dsim/loadstore/program.h"
#include "dsim/loadstore/protocols.h"

namespace snr::dsim::loadstore {

enum class Transfer : uint8_t { kPut, kGet };
std::string_view transfer_name(Transfer transfer);  // "put", "get"
// "put" or "get"; throws snr::Error naming both.
Transfer parse_transfer(std::string_view text);
// "Simple", "LL" or "LL128" (any case); throws snr::Error naming them.
Protocol parse_protocol(std::string_view text);

// The collectives a generated plan can implement, by the checker's names.
inline constexpr std::string_view kAllGather = "allgather";
inline constexpr std::string_view kReduceScatter = "reducescatter";
inline constexpr std::string_view kAllReduce = "allreduce";
inline constexpr std::string_view kAllToAll = "alltoall";

struct GeneratedPlanOptions {
  std::string collective;  // allgather, reducescatter, allreduce, alltoall
  uint32_t gpus = 0;
  uint32_t workgroups = 1;  // per GPU; workgroup w moves slice w of every chunk
  // Per GPU, the collective's buffer on the nccl-tests convention: the
  // larger of input and output (all-gather output, reduce-scatter input,
  // the all-reduce and all-to-all buffer).
  uint64_t buffer_bytes = 0;
  Transfer transfer = Transfer::kPut;
  Protocol protocol = Protocol::kSimple;
  uint32_t threads_per_workgroup = 1024;  // as MSCCL++ launches its kernels
  uint32_t wavefront_threads = 32;
  // Pieces a Simple step's transfer is cut into, each with its own signal
  // (NCCL's slices); 0: the algorithm's default. Algorithms without
  // pipelined steps ignore it.
  uint32_t slices_per_step = 0;
  // SM cycles every workgroup spends before its first transfer (a kernel's
  // prologue: reading its work description, setting up its peers); 0: none.
  uint32_t prologue_cycles = 0;
  // A run's size: once GPU 0's share is built (GPUs emit alike), a plan
  // whose run would issue more than this many cache-line requests of
  // `cache_line_bytes` (line_requests in program.h) is refused, before the
  // other GPUs are expanded; 0: no limit.
  uint64_t max_line_requests = 0;
  uint32_t cache_line_bytes = 128;
};

// Slices and chunk splits are cut in whole elements of this size (fp32), so
// the buffer must hold a whole number of elements per GPU chunk.
inline constexpr uint64_t kPlanElementBytes = 4;

// A parameter an algorithm reads, for help text and error messages.
struct PlanParameter {
  std::string name;
  std::string meaning;
};

class PlanBuilder;

// One built-in algorithm. Implementations live one per file.
class PlanAlgorithm {
 public:
  virtual ~PlanAlgorithm() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view summary() const = 0;
  [[nodiscard]] virtual std::vector<std::string_view> collectives() const = 0;
  [[nodiscard]] virtual std::vector<PlanParameter> parameters() const = 0;
  // Both transfers and both protocols unless an algorithm says otherwise.
  [[nodiscard]] virtual bool supports(Transfer, Protocol) const { return true; }
  [[nodiscard]] virtual uint32_t min_gpus() const { return 2; }
  // Why `gpus` (at least min_gpus()) cannot run this algorithm, naming the
  // nearest counts that can; empty when it can.
  [[nodiscard]] virtual std::string unsupported_gpus(uint32_t /*gpus*/) const { return {}; }
  // Bytes one GPU sends between two of its synchronizations (a ring step's
  // chunk, a direct exchange's N-1 chunks): the transfer size of §3.2's
  // choice between LL and Simple.
  [[nodiscard]] virtual uint64_t bytes_per_step(const GeneratedPlanOptions& options) const = 0;
  // Emits every GPU's kernel into `builder` (options already validated).
  virtual void expand(const GeneratedPlanOptions& options, PlanBuilder& builder) const = 0;

  [[nodiscard]] bool implements(std::string_view collective) const;
};

// The algorithm called `name`; throws snr::Error listing the registered ones.
const PlanAlgorithm& find_plan_algorithm(std::string_view name);
// Registered names in registration order (built-ins first).
std::vector<std::string> plan_algorithm_names();
// The algorithm `auto` picks for a collective: the first registered one that
// implements it. Throws snr::Error for a collective none implements.
const PlanAlgorithm& default_plan_algorithm(std::string_view collective);
// Adds an algorithm; throws snr::Error when its name is taken.
void register_plan_algorithm(std::unique_ptr<PlanAlgorithm> algorithm);

// Expands `algorithm` for `options` into a Program. Throws snr::Error naming
// the parameter when the algorithm does not implement the collective,
// transfer or protocol, or the sizes do not split.
Program generate_collective_plan(const PlanAlgorithm& algorithm, const GeneratedPlanOptions& options);

// Seed 003 §3.2's rule for `--protocol auto`: LL while a step's bytes are
// below the size at which Simple's two extra latencies pay for LL's halved
// bandwidth on `per_gpu_link` (S* = 2αB, protocols.h), Simple from there;
// among the protocols `algorithm` has for the transfer (the other of the two
// when it lacks that one, else LL128).
Protocol choose_protocol(const PlanAlgorithm& algorithm, const GeneratedPlanOptions& options,
                         const AlphaBetaLink& per_gpu_link);

// The per-GPU input and output bytes of `collective` for a buffer.
GpuBuffers collective_buffers(std::string_view collective, uint32_t gpus, uint64_t buffer_bytes);

// Built-in algorithms (each defined in its own file).
std::unique_ptr<PlanAlgorithm> make_ring_plan_algorithm();
std::unique_ptr<PlanAlgorithm> make_direct_plan_algorithm();
std::unique_ptr<PlanAlgorithm> make_nccl_ring_plan_algorithm();
std::unique_ptr<PlanAlgorithm> make_nccl_tree_plan_algorithm();
std::unique_ptr<PlanAlgorithm> make_halving_doubling_plan_algorithm();
std::unique_ptr<PlanAlgorithm> make_double_binary_tree_plan_algorithm();
std::unique_ptr<PlanAlgorithm> make_nccl_nvls_plan_algorithm();

}  // namespace snr::dsim::loadstore
