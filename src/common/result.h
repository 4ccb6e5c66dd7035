// Result<T>: a value or an Error, for code paths where failure is expected
// and the caller decides (parsers of outside input, lookups by name).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

#include "common/error.h"

namespace snr {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}          // NOLINT(google-explicit-constructor)
  Result(Error error) : state_(std::move(error)) {}      // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  [[nodiscard]] const T& value() const& {
    if (!ok()) throw std::get<Error>(state_);
    return std::get<T>(state_);
  }
  [[nodiscard]] T& value() & {
    if (!ok()) throw std::get<Error>(state_);
    return std::get<T>(state_);
  }
  [[nodiscard]] T&& value() && {
    if (!ok()) throw std::get<Error>(state_);
    return std::get<T>(std::move(state_));
  }
  [[nodiscard]] const Error& error() const {
    assert(!ok());
    return std::get<Error>(state_);
  }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> equivalent.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT(google-explicit-constructor)
  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const { return error_; }
  void throw_if_error() const {
    if (!ok_) throw error_;
  }

 private:
  Error error_{""};
  bool ok_ = true;
};

}  // namespace snr
