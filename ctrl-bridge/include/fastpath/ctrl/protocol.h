// SPDX-License-Identifier: GPL-2.0-only
// What both ends of the control socket agree on: the protocol version and the defaults.
// C++17-clean (the ns-3 module includes it through client.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fastpath::ctrl {

/// Protocol version spoken by this library (proto package fastpath.v1).
inline constexpr uint32_t kProtocolMajor = 1;
inline constexpr uint32_t kProtocolMinor = 15;

/// Where fastpathd listens unless told otherwise.
inline constexpr const char* kDefaultSocketPath = "/run/fastpathd/fastpathd.sock";

/// Largest frame either side accepts unless configured otherwise.
inline constexpr std::size_t kDefaultMaxMessageBytes = 16u << 20;

}  // namespace fastpath::ctrl
