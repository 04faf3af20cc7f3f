// SPDX-License-Identifier: GPL-2.0-only
// Static routes and neighbours as a configuration states them (--route/--neigh, the
// topology file's `routes:`/`neighbours:`): ports are named, resolved when the daemon
// starts. Apart from config.h so that config.h (Config holds a Topology) and topology.h
// (a TopologyNode holds routes) can include it without including each other.
#pragma once

#include <cstdint>
#include <string>

#include "fastpath/net_types.h"

namespace fastpath {

/// A static route as written in the configuration: the port is named, resolved later.
struct RouteConfig {
  IpPrefix prefix;
  IpAddress via;  ///< unspecified: on-link
  std::string dev;
  uint32_t metric = 0;
};

struct NeighbourConfig {
  IpAddress ip;
  MacAddress mac;
  std::string dev;
};

}  // namespace fastpath
