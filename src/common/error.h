// Errors that cross a library boundary. Library code throws snr::Error (or
// returns snr::Result) with enough context to act on: what was being done,
// where (file, offset, node id, line) and why. Only the CLI decides exit codes.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace snr {

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message) : std::runtime_error(std::move(message)) {}

  // Returns a new error whose message is "context: <this message>".
  [[nodiscard]] Error with_context(const std::string& context) const {
    return Error(context + ": " + what());
  }
};

// Runs `fn` and re-throws any snr::Error with `context` prepended.
template <typename Fn>
auto with_error_context(const std::string& context, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    throw e.with_context(context);
  }
}

}  // namespace snr
