// SPDX-License-Identifier: GPL-2.0-only
// Helpers shared by the route mirror's source files (fast-path-route-mirror*.cc); not
// installed.
#ifndef FAST_PATH_ROUTE_MIRROR_INTERNAL_H
#define FAST_PATH_ROUTE_MIRROR_INTERNAL_H

#include "fastpath/control_types.h"
#include "fastpath/net_types.h"

#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/ipv6-routing-protocol.h"
#include "ns3/ipv6.h"
#include "ns3/ptr.h"

#include <vector>

namespace ns3
{
namespace fastpathmirror
{

/// The IPv4 / IPv6 routing protocols of a node, highest priority first (Ipv4ListRouting
/// and Ipv6ListRouting keep theirs sorted that way); a single protocol when there is no
/// list, none without the protocol.
std::vector<Ptr<Ipv4RoutingProtocol>> Ipv4Protocols(Ptr<Ipv4> ipv4);
std::vector<Ptr<Ipv6RoutingProtocol>> Ipv6Protocols(Ptr<Ipv6> ipv6);

/// Destinations that never go through the fast path: IPv4 loopback, multicast and limited
/// broadcast; IPv6 loopback, multicast and link-local (fastpathd's classifier hands
/// link-local and ND traffic to ns-3, and fe80::/64 exists once per interface).
bool Skippable(const fastpath::IpAddress& dest, uint8_t length);

/// A route in fastpathd's terms. The next hop is left unspecified (on-link) when the
/// gateway is the unspecified address, or is the destination itself (a host route to a
/// neighbour, as OLSR and AODV state it).
fastpath::Route MakeRoute(const fastpath::IpAddress& dest,
                          uint8_t length,
                          const fastpath::IpAddress& gateway,
                          fastpath::PortId port,
                          uint32_t metric);

} // namespace fastpathmirror
} // namespace ns3

#endif
