// Linked into every unit-test binary: publishes where the source tree, the
// build tree and the shared external inputs are, as environment variables
// the tests read. Values already set by the caller win.
#include <cstdlib>
#include <string>

namespace {

bool publish_test_environment() {
  const std::string binary_dir = SNR_TEST_BINARY_DIR;
  ::setenv("SNR_SHARED_DATA", SNR_TEST_SHARED_DATA, /*overwrite=*/0);
  ::setenv("SNR_SOURCE_DIR", SNR_TEST_SOURCE_DIR, 0);
  ::setenv("SNR_BINARY_DIR", binary_dir.c_str(), 0);
  ::setenv("SNR_BIN", (binary_dir + "/snr").c_str(), 0);
  return true;
}

[[maybe_unused]] const bool published = publish_test_environment();

}  // namespace
