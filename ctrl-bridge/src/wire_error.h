// SPDX-License-Identifier: GPL-2.0-only
// How ctrl-bridge reports a request it refuses: a wire error code, the path of the
// offending field ("apply_routes.add[3].prefix.length") and a message that starts with it.
// Internal to ctrl-bridge.
#pragma once

#include <string>

#include "fastpath/result.h"
#include "fastpath/v1/fastpath.pb.h"

namespace fastpath::ctrl {

namespace v1 = ::fastpath::v1;

struct WireError {
  v1::ErrorCode code = v1::INVALID_ARGUMENT;
  std::string field;
  std::string message;
};

/// A validated value, or why the request was refused.
template <typename T>
using WireResult = Result<T, WireError>;
using WireStatus = Result<void, WireError>;

/// The error for `field`: its message is "<field>: <what>".
inline WireError wireError(v1::ErrorCode code, const std::string& field, const std::string& what) {
  return WireError{code, field, field + ": " + what};
}

/// Wire error code <-> negative errno used in fastpath::Error.
int errnoForCode(v1::ErrorCode code);
v1::ErrorCode codeForErrno(int negative_errno);

}  // namespace fastpath::ctrl
