// For tests: files of their own under the system's temporary directory,
// in a directory unique to the process (two suites may run at once) and
// removed with everything in it when the process ends, so that running the
// suite again and again leaves nothing behind.
#pragma once

#include <errno.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace snr::testing {

class ScratchDir {
 public:
  // Makes <tmp>/<prefix>_XXXXXX; throws std::system_error when it cannot.
  explicit ScratchDir(std::string_view prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (std::string(prefix) + "_XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;  // a test that failed half-way may hold files open
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// `name` inside this process's scratch directory (made on first use, named
// after the test binary, removed at exit). The file itself is not made.
inline std::filesystem::path scratch_path(std::string_view name) {
  static const ScratchDir dir(std::string("snr_") + program_invocation_short_name);
  return dir.path() / name;
}

}  // namespace snr::testing
