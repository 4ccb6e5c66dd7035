#include "dsim/loadstore/collective_plan.h"

#include <map>
#include <memory>

#include "common/error.h"
#include "dsim/loadstore/lower_mscclpp.h"
#include "formats/mscclpp/plan_reader.h"
#ifdef SNR_HAVE_MSCCLLANG
#include "dsim/loadstore/lower_msccllang.h"
#include "formats/msccllang/algorithm.h"
#endif

namespace snr::dsim::loadstore {
namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

CollectivePlan load_msccllang(const std::string& path) {
#ifdef SNR_HAVE_MSCCLLANG
  auto algorithm = std::make_shared<msccllang::Algorithm>(msccllang::read_algorithm_file(path));
  CollectivePlan out;
  out.format = "MSCCLang";
  out.name = algorithm->name;
  out.collective = msccllang_collective(*algorithm);
  out.protocol = algorithm->protocol;
  out.schema = "MSCCLang XML";
  out.inplace = algorithm->inplace;
  out.buffers_alias = msccllang_buffers_alias(*algorithm);
  out.gpus = static_cast<uint32_t>(algorithm->gpus.size());
  out.summary = msccllang::summarize(*algorithm);
  std::map<std::string, uint64_t> counts;
  for (const auto& gpu : algorithm->gpus) {
    for (const auto& tb : gpu.threadblocks) {
      for (const auto& step : tb.steps) ++counts[std::string(msccllang::to_string(step.type))];
    }
  }
  out.op_counts.assign(counts.begin(), counts.end());
  out.default_input_bytes = smallest_exact_input_bytes(*algorithm);
  out.lower = [algorithm](uint64_t input_bytes, uint32_t wavefront_threads) {
    MsccllangLowering options;
    options.input_bytes = input_bytes;
    options.wavefront_threads = wavefront_threads;
    return lower_msccllang(*algorithm, options);
  };
  return out;
#else
  throw Error(path + ": MSCCLang XML support was not built (pugixml is missing)");
#endif
}

}  // namespace

CollectivePlan load_collective_plan(const std::string& path) {
  if (ends_with(path, ".xml")) return load_msccllang(path);
  auto plan = std::make_shared<mscclpp::Plan>(mscclpp::read_plan_file(path));
  CollectivePlan out;
  out.format = "MSCCL++";
  out.name = plan->name;
  out.collective = plan->collective;
  out.protocol = std::string(mscclpp::to_string(plan->protocol));
  out.schema = std::string(mscclpp::to_string(plan->variant));
  out.inplace = plan->inplace;
  out.buffers_alias = plan->inplace;  // MSCCL++ runs in-place plans on one buffer
  out.gpus = static_cast<uint32_t>(plan->gpus.size());
  out.summary = mscclpp::summarize(*plan);
  for (const auto& [type, count] : mscclpp::count_ops(*plan)) {
    out.op_counts.emplace_back(std::string(mscclpp::op_info(type).name), count);
  }
  out.default_input_bytes = smallest_exact_input_bytes(*plan);
  out.lower = [plan](uint64_t input_bytes, uint32_t wavefront_threads) {
    MscclppLowering options;
    options.input_bytes = input_bytes;
    options.wavefront_threads = wavefront_threads;
    return lower_mscclpp(*plan, options);
  };
  return out;
}

}  // namespace snr::dsim::loadstore
