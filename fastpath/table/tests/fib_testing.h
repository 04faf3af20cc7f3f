// SPDX-License-Identifier: GPL-2.0-only
// For tests and benchmarks: a FibManager, or the process stops with the reason (a table
// that cannot even be reserved leaves nothing to test); IPv4 routes written as numbers.
#pragma once

#include <arpa/inet.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "table/fib_manager.h"

namespace fastpath::testing {

inline std::unique_ptr<FibManager> createFib(size_t max_v4_routes, size_t max_v6_routes) {
  auto fib = FibManager::create(max_v4_routes, max_v6_routes);
  if (!fib.ok()) {
    std::fprintf(stderr, "FibManager::create: %s\n", fib.error().message.c_str());
    std::abort();
  }
  return std::move(fib).value();
}

/// An IPv4 address from its host-order number (0xc6120001: 198.18.0.1).
inline IpAddress v4(uint32_t host) { return IpAddress::v4(htonl(host)); }

/// The route ip/len via gw (0: on-link) out of `port`, addresses as host-order numbers.
inline Route route(uint32_t ip, uint8_t len, uint32_t gw, PortId port = 1) {
  Route r;
  r.prefix.address = v4(ip);
  r.prefix.length = len;
  if (gw) r.next_hop = v4(gw);
  r.port = port;
  return r;
}

}  // namespace fastpath::testing
