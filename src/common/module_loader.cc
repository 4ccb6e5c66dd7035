#include "common/module_loader.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/error.h"

namespace snr {
namespace {

// Beside the running executable first (`snr` and its modules are built into
// one folder), then the folder the build put it in (a copy of the
// executable elsewhere, or a test binary in a subfolder, still finds it).
std::vector<std::filesystem::path> module_candidates(std::string_view file_name, std::string_view build_dir) {
  std::vector<std::filesystem::path> candidates;
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(executable.parent_path() / file_name);
  if (!build_dir.empty()) {
    std::filesystem::path built = std::filesystem::path(build_dir) / file_name;
    if (candidates.empty() || built != candidates.front()) candidates.push_back(std::move(built));
  }
  return candidates;
}

}  // namespace

void* load_module_entry(std::string_view file_name, std::string_view build_dir, const char* entry,
                        std::string_view what, std::string_view remedy) {
  std::string failures;
  for (const std::filesystem::path& path : module_candidates(file_name, build_dir)) {
    std::error_code error;
    if (!std::filesystem::exists(path, error)) {
      failures += fmt::format("; {}: absent", path.string());
      continue;
    }
    // Never closed: code and objects of the module outlive every caller.
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      const char* why = dlerror();
      failures += fmt::format("; {}: {}", path.string(), why != nullptr ? why : "not loadable");
      continue;
    }
    if (void* address = dlsym(module, entry)) return address;
    failures += fmt::format("; {}: no {}", path.string(), entry);
  }
  throw Error(fmt::format("{}: its module {} was not found or did not load ({}); {}", what, file_name,
                          failures.empty() ? std::string("no place to look") : failures.substr(2), remedy));
}

}  // namespace snr
