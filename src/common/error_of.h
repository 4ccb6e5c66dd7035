// For tests: the message of the snr::Error that `fn` throws, "" when it
// throws none, so a test can check what the user would read.
#pragma once

#include <string>

#include "common/error.h"

namespace snr::testing {

template <class Fn>
std::string error_of(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace snr::testing
