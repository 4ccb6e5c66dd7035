// For tests: the collective plans in the shared data folder (named by the
// SNR_SHARED_DATA environment variable): every MSCCL++ plan, current and
// legacy schema, and optionally ASTRA-sim's MSCCLang ring all-reduce; none
// when the folder is absent.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

namespace snr::dsim::loadstore::testing {

inline std::vector<std::filesystem::path> shared_plan_files(bool with_msccllang_xml) {
  namespace fs = std::filesystem;
  std::vector<fs::path> plans;
  const char* dir = std::getenv("SNR_SHARED_DATA");
  if (dir == nullptr) return plans;
  for (const fs::path& sub : {fs::path(dir) / "mscclpp", fs::path(dir) / "mscclpp" / "legacy"}) {
    if (!fs::is_directory(sub)) continue;
    for (const auto& entry : fs::directory_iterator(sub)) {
      if (entry.path().extension() == ".json") plans.push_back(entry.path());
    }
  }
  const fs::path xml =
      fs::path(dir) / "astra-sim/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce.xml";
  if (with_msccllang_xml && fs::exists(xml)) plans.push_back(xml);
  std::sort(plans.begin(), plans.end());
  return plans;
}

}  // namespace snr::dsim::loadstore::testing
