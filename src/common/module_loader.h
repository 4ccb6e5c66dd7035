// Code that only some runs need lives in a module (a shared object built
// beside `snr`) loaded the first time it is used, so that every other run
// neither maps nor relocates the libraries it links: the ns-3 network
// backend (ns-3) and the MPI task farm (Open MPI). A module takes snr's own
// functions from the executable that loads it (ENABLE_EXPORTS).
#pragma once

#include <string_view>

namespace snr {

// The address of `entry` in the module `file_name`, looked for beside the
// running executable and then in `build_dir` (where the build put it; "" for
// none), loaded once and never unloaded. Throws snr::Error naming `what`,
// every place looked and why each failed, ending with `remedy`.
void* load_module_entry(std::string_view file_name, std::string_view build_dir, const char* entry,
                        std::string_view what, std::string_view remedy);

}  // namespace snr
