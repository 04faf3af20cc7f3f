// SPDX-License-Identifier: GPL-2.0-only
// For tests and benchmarks: a FibManager, or the process stops with the reason (a table
// that cannot even be reserved leaves nothing to test); IPv4 routes written as numbers; the
// benchmarks' table of random IPv4 routes.
#pragma once

#include <arpa/inet.h>

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

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

/// The benchmarks' table: room for `routes` IPv4 routes (at least 65,536) and 4,096 IPv6
/// ones, ports 0 and 1 (MTU 1500, MACs 02:00:00:00:00:01 and :02).
inline std::unique_ptr<FibManager> createBenchFib(size_t routes) {
  auto fib = createFib(std::max<size_t>(routes, 1u << 16), 1u << 12);
  PortConfig p0{0, {}, 1500, true}, p1{1, {}, 1500, true};
  p0.mac.bytes = {2, 0, 0, 0, 0, 1};
  p1.mac.bytes = {2, 0, 0, 0, 0, 2};
  (void)fib->setPorts({p0, p1});
  return fib;
}

/// Adds `count` distinct random IPv4 prefixes to `b` (60% /24, 37% /16-/23, 3% /8-/15; none
/// in 0/8, 127/8 or 224/3), each via one of the gateways 198.18.1.2-9 on port 1. Returns a
/// host-order destination inside each, in the order of the routes.
inline std::vector<uint32_t> addRandomRoutes4(RouteBatch& b, size_t count, std::mt19937_64& rng) {
  auto mask = [](unsigned d) { return d == 0 ? 0u : ~0u << (32 - d); };
  std::vector<uint32_t> dst;
  std::unordered_set<uint64_t> seen;
  while (dst.size() < count) {
    const unsigned r = rng() % 100;
    const uint8_t d = r < 60   ? 24
                      : r < 97 ? static_cast<uint8_t>(16 + rng() % 8)
                               : static_cast<uint8_t>(8 + rng() % 8);
    const uint32_t ip = static_cast<uint32_t>(rng()) & mask(d);
    if ((ip >> 24) == 0 || (ip >> 24) == 127 || (ip >> 24) >= 224) continue;
    if (!seen.insert((uint64_t{ip} << 6) | d).second) continue;
    Route rt;
    rt.prefix.address = IpAddress::v4(htonl(ip));
    rt.prefix.length = d;
    rt.next_hop = IpAddress::v4(htonl(0xc6120100u + 2 + static_cast<uint32_t>(rng() % 8)));
    rt.port = 1;
    b.add.push_back(rt);
    dst.push_back(ip | (static_cast<uint32_t>(rng()) & ~mask(d)));
  }
  return dst;
}

/// Neighbours for addRandomRoutes4()'s gateways (198.18.1.2-9 on port 1, MACs
/// 02:00:00:00:01:00-07); errors are ignored, as the benchmarks load their tables.
inline void addGatewayNeighbours(FibManager& fib) {
  for (uint32_t k = 0; k < 8; ++k) {
    Neighbour n;
    n.ip = IpAddress::v4(htonl(0xc6120100u + 2 + k));
    n.port = 1;
    n.mac.bytes = {2, 0, 0, 0, 1, static_cast<uint8_t>(k)};
    (void)fib.addNeighbour(n);
  }
}

}  // namespace fastpath::testing
