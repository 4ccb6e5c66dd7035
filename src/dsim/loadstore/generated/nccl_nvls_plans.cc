// NCCL's NVLS on one NVSwitch node: the switch reduces and replicates, so
// every GPU handles only its own chunk (1/N of the buffer) and does it in
// one pass through multicast addresses:
//   all-reduce      multimem.ld_reduce of chunk r over every GPU's input,
//                   multimem.st of the sum into every GPU's output;
//   reduce-scatter  multimem.ld_reduce of chunk r, stored to its own output;
//   all-gather      its input multimem.st into chunk r of every output.
// The workgroups (NCCL's NVLS channels) split the chunk in slices. At the
// end each workgroup tells its counterparts on the other GPUs, fenced,
// that its stores landed and waits for theirs: a GPU's buffers are final
// when its kernel ends.
//
// This is the data path NCCL takes with buffers registered for NVLS (user
// buffers mapped at multicast addresses); without registration NCCL first
// copies through its own multicast-mapped buffers, which is not modelled.
// Simple only, put only (every transfer is the GPU's own multimem access).
#include <string_view>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

class NcclNvlsPlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "nccl-nvls"; }
  std::string_view summary() const override {
    return "nccl-nvls: NCCL's NVLS, each GPU reduces and broadcasts its chunk through NVSwitch multicast";
  }
  std::vector<std::string_view> collectives() const override { return {kAllReduce, kReduceScatter, kAllGather}; }
  bool supports(Transfer transfer, Protocol protocol) const override {
    return transfer == Transfer::kPut && protocol == Protocol::kSimple;
  }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "every GPU is a member of one multicast group of all of them"},
            {"workgroups", "per GPU (NCCL's NVLS channels); workgroup w moves slice w of the GPU's chunk"},
            {"buffer_bytes", "cut into one chunk per GPU; GPU r reduces and broadcasts chunk r"},
            {"transfer", "put only: multimem loads and stores through the switch"},
            {"protocol", "Simple only (NCCL runs NVLS with Simple)"}};
  }

  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    return options.buffer_bytes / options.gpus;
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus, workgroups = options.workgroups;
    for (uint32_t me = 0; me < n; ++me) {
      for (uint32_t w = 0; w < workgroups; ++w) {
        b.begin_workgroup(me, w);
        b.select_slice(w, workgroups);
        b.prologue();
        if (options.collective == kAllReduce) {
          b.switch_reduce(b.switch_chunk(Space::kInput, me), {b.switch_chunk(Space::kOutput, me)}, "reduce+broadcast");
        } else if (options.collective == kReduceScatter) {
          b.switch_reduce(b.switch_chunk(Space::kInput, me), {b.chunk(me, Space::kOutput, 0)}, "reduce");
        } else {
          b.copy(b.chunk(me, Space::kInput, 0), b.switch_chunk(Space::kOutput, me), "broadcast");
        }
        // A fenced signal after every wavefront's stores covers all of them.
        b.hold("transfers issued");
        for (uint32_t peer = 0; peer < n; ++peer) {
          if (peer != me) b.notify(peer, w, "done", false);
        }
        b.await("done", n - 1);
        b.hold("done");
        b.end_workgroup();
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_nccl_nvls_plan_algorithm() { return std::make_unique<NcclNvlsPlanAlgorithm>(); }

}  // namespace snr::dsim::loadstore
