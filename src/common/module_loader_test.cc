#include "common/module_loader.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <string>

#include "common/error.h"

namespace snr {
namespace {

std::string error_of(std::string_view file_name, std::string_view build_dir, const char* entry) {
  try {
    (void)load_module_entry(file_name, build_dir, entry, "the test's module", "do something else");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A module that is surely loadable: the C++ runtime this test runs on.
std::filesystem::path runtime_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&std::terminate), &info) == 0 || info.dli_fname == nullptr) return {};
  return info.dli_fname;
}

TEST(LoadModuleEntry, FindsTheEntryInTheBuildFolder) {
  const std::filesystem::path library = runtime_library();
  ASSERT_FALSE(library.empty());
  void* entry = load_module_entry(library.filename().string(), library.parent_path().string(), "_ZSt9terminatev",
                                  "the test's module", "");
  EXPECT_EQ(entry, reinterpret_cast<void*>(&std::terminate));
}

TEST(LoadModuleEntry, SaysWhereItLookedAndWhy) {
  const std::string absent = error_of("libsnr_no_such_module.so", "/nonexistent-build", "entry");
  EXPECT_NE(absent.find("the test's module: its module libsnr_no_such_module.so was not found"), std::string::npos)
      << absent;
  EXPECT_NE(absent.find("/nonexistent-build/libsnr_no_such_module.so: absent"), std::string::npos) << absent;
  EXPECT_NE(absent.find("; do something else"), std::string::npos) << absent;

  const std::filesystem::path library = runtime_library();
  ASSERT_FALSE(library.empty());
  const std::string no_entry =
      error_of(library.filename().string(), library.parent_path().string(), "snr_no_such_entry");
  EXPECT_NE(no_entry.find(": no snr_no_such_entry"), std::string::npos) << no_entry;
}

}  // namespace
}  // namespace snr
