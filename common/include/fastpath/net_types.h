// SPDX-License-Identifier: GPL-2.0-only
// Domain types shared by fastpathd, ctrl-bridge and the ns-3 module: addresses, prefixes,
// routes, neighbours. C++17-clean. Addresses are kept in network byte order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastpath/result.h"

namespace fastpath {

enum class Family : uint8_t { kIpv4 = 4, kIpv6 = 6 };

/// An IPv4 or IPv6 address, network byte order; IPv4 uses bytes[0..3].
struct IpAddress {
  Family family = Family::kIpv4;
  std::array<uint8_t, 16> bytes{};

  static IpAddress v4(uint32_t network_order);
  static IpAddress v6(const std::array<uint8_t, 16>& bytes);
  static Result<IpAddress> parse(const std::string& text);  // "198.18.0.1", "2001:2::1"
  uint32_t v4NetworkOrder() const;
  bool isUnspecified() const;
  std::string toString() const;
  bool operator==(const IpAddress& o) const { return family == o.family && bytes == o.bytes; }
  bool operator!=(const IpAddress& o) const { return !(*this == o); }
};

/// A unicast IPv4 address (not 0.0.0.0, loopback, multicast, class E or broadcast): what a
/// VXLAN wire's underlay address must be, from a topology file or the control socket.
bool validUnderlayAddress(const IpAddress& a);
/// The highest UDP port a VXLAN wire may use: its probes travel to port + 1.
inline constexpr uint16_t kMaxVxlanPort = 65534;

/// A prefix. Invariant after normalise(): host bits are zero.
struct IpPrefix {
  IpAddress address;
  uint8_t length = 0;

  /// Parses "198.18.2.0/24" or "2001:2:0:1::/64"; rejects length > 32/128. Host bits set
  /// are an error (the caller can normalise explicitly): see docs/reference/ipc.md.
  static Result<IpPrefix> parse(const std::string& text);
  bool hostBitsSet() const;
  IpPrefix normalised() const;
  std::string toString() const;
  bool operator==(const IpPrefix& o) const { return address == o.address && length == o.length; }
};

struct MacAddress {
  std::array<uint8_t, 6> bytes{};
  static Result<MacAddress> parse(const std::string& text);  // "02:00:00:00:00:01"
  std::string toString() const;
  bool isZero() const;
  bool operator==(const MacAddress& o) const { return bytes == o.bytes; }
  bool operator!=(const MacAddress& o) const { return !(*this == o); }
};

using PortId = uint32_t;  ///< fastpathd's index of a port (0..n-1), not an ifindex.

/// A forwarding entry as ns-3 (or fpctl) states it.
struct Route {
  IpPrefix prefix;
  /// Gateway; unspecified (all zero) means the destination is on-link on `port`.
  IpAddress next_hop;
  PortId port = 0;
  uint32_t metric = 0;
};

struct Neighbour {
  IpAddress ip;
  PortId port = 0;
  MacAddress mac;
};

/// One transaction on the table. Validated whole before anything is applied.
struct RouteBatch {
  std::vector<Route> add;        ///< add or replace (same prefix replaces)
  std::vector<IpPrefix> remove;  ///< must exist unless ignore_missing
  bool replace_all = false;      ///< `add` becomes the whole table
  bool ignore_missing = false;
};

}  // namespace fastpath
