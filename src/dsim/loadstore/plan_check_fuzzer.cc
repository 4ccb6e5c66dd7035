// Fuzz entry point: arbitrary bytes as a collective plan, lowered at its
// smallest exact size and run through the data-movement checker. The first
// byte picks the format (even: MSCCL++ JSON, odd: MSCCLang XML where the
// build reads it). Only snr::Error is an acceptable failure. Plans whose
// lowering or check would be large are skipped, so that an input costs
// milliseconds: the readers' own targets cover size limits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "dsim/loadstore/data_check.h"
#include "dsim/loadstore/lower_mscclpp.h"
#include "formats/mscclpp/plan_reader.h"
#ifdef SNR_HAVE_MSCCLLANG
#include "dsim/loadstore/lower_msccllang.h"
#include "formats/msccllang/algorithm.h"
#endif

namespace {

namespace ls = snr::dsim::loadstore;

constexpr uint64_t kMaxInputBytes = uint64_t{1} << 16;
constexpr uint64_t kMaxBufferBytes = uint64_t{1} << 20;
constexpr uint64_t kMaxOps = uint64_t{1} << 16;

void check(const ls::Program& program, const std::string& collective, bool inplace) {
  uint64_t bytes = 0;
  for (const ls::GpuBuffers& b : program.gpus) bytes += b.input_bytes + b.output_bytes + b.scratch_bytes;
  if (bytes > kMaxBufferBytes || program.ops.size() > kMaxOps) return;
  ls::DataCheckOptions options;
  options.collective = collective;
  options.inplace = inplace;
  (void)ls::check_data_movement(program, options);
}

// Pipeline iterations the lowering would expand, bounded before it runs.
uint64_t pipeline_ops(const std::vector<snr::mscclpp::Op>& ops, uint64_t input_bytes) {
  uint64_t total = 0;
  for (const snr::mscclpp::Op& op : ops) {
    if (op.type != snr::mscclpp::OpType::kPipeline) continue;
    if (op.unit_size_bytes == 0) return UINT64_MAX;
    total += (uint64_t{op.pipeline_chunks} * input_bytes / op.unit_size_bytes + 1) * (op.body.size() + 1);
  }
  return total;
}

void run_mscclpp(std::string_view text) {
  const snr::mscclpp::Plan plan = snr::mscclpp::parse_plan(text, "fuzz-input");
  const uint64_t input_bytes = ls::smallest_exact_input_bytes(plan);
  if (input_bytes > kMaxInputBytes) return;
  for (const auto& gpu : plan.gpus) {
    for (const auto& tb : gpu.threadblocks) {
      if (pipeline_ops(tb.ops, input_bytes) > kMaxOps) return;
    }
  }
  ls::MscclppLowering lowering;
  lowering.input_bytes = input_bytes;
  check(ls::lower_mscclpp(plan, lowering), plan.collective, plan.inplace);
}

#ifdef SNR_HAVE_MSCCLLANG
void run_msccllang(std::string_view text) {
  const snr::msccllang::Algorithm algorithm = snr::msccllang::parse_algorithm(text, "fuzz-input");
  const uint64_t input_bytes = ls::smallest_exact_input_bytes(algorithm);
  if (input_bytes > kMaxInputBytes) return;
  ls::MsccllangLowering lowering;
  lowering.input_bytes = input_bytes;
  check(ls::lower_msccllang(algorithm, lowering), ls::msccllang_collective(algorithm),
        ls::msccllang_buffers_alias(algorithm));
}
#endif

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if ((data[0] & 1) == 0) {
      run_mscclpp(text);
    } else {
#ifdef SNR_HAVE_MSCCLLANG
      run_msccllang(text);
#endif
    }
  } catch (const snr::Error&) {
  }
  return 0;
}
