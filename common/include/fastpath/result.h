// SPDX-License-Identifier: GPL-2.0-only
// An expected-like result: a value, or an error carrying its context. C++17-clean
// (the ns-3 module includes it; Debian's ns-3 headers do not compile as C++20).
#pragma once

#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace fastpath {

/// An error: a negative errno-style code (0 when not applicable) and a message that says
/// what failed, on what, and what to do.
struct Error {
  int code = 0;
  std::string message;
};

/// Holds a T or an E (by default an Error). Never thrown; check ok() before value().
/// Another E carries another kind of error, e.g. ctrl-bridge's WireError (a wire error code
/// and the offending field).
template <typename T, typename E = Error>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(E error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const E& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, E> v_;
};

/// Result of an operation with no value.
template <typename E>
class Result<void, E> {
 public:
  Result() = default;
  Result(E error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const E& error() const { return error_; }

 private:
  E error_;
  bool ok_ = true;
};

using Status = Result<void>;

inline Error makeError(int code, std::string message) { return Error{code, std::move(message)}; }

/// strerror() of an errno value given either as it is (EINVAL) or negated as libbpf and
/// the kernel return it (-EINVAL).
inline std::string errnoText(int err) { return std::strerror(err < 0 ? -err : err); }

}  // namespace fastpath
